/**
 * A fly camera: WASD to move, Q/E down/up, Shift fast; drag with the mouse to look; on touch, one
 * finger looks and two fingers fly forwards. It never goes below the ground.
 */

import { PerspectiveCamera, Vector3 } from 'three';
import type { HeightField } from '../world/height-field';
import type { CameraPose } from './camera-pose';

/** Speed of normal flight, metres per second (Shift multiplies it by {@link FAST_FACTOR}). */
const SPEED = 40;
const FAST_FACTOR = 8;
/** Radians of turn per pixel of drag. */
const LOOK_RATE = 0.004;
/** Lowest eye height above ground, metres. */
const MIN_HEIGHT = 1.8;
const MAX_PITCH = Math.PI / 2 - 0.02;
/** Keys that fly the camera (and so stop the tour). */
const FLIGHT_KEYS = /^(Key[WASDQE]|Arrow\w+)$/;

/** The player's camera and its input handling. */
export class FlyCamera {
  readonly camera: PerspectiveCamera;
  yaw = 0;
  pitch = 0;
  /** Set by input; the tour clears its hold when the user takes over. */
  userActive = false;
  private readonly keys = new Set<string>();
  private readonly forward = new Vector3();
  private readonly right = new Vector3();
  private dragging = false;
  private lastX = 0;
  private lastY = 0;
  private touchFly = false;
  private readonly listeners: Array<[EventTarget, string, EventListener]> = [];

  constructor(
    private readonly heights: HeightField,
    aspect: number,
    element: HTMLElement,
  ) {
    this.camera = new PerspectiveCamera(60, aspect, 0.5, 9000);
    this.camera.rotation.order = 'YXZ';
    this.listen(window, 'keydown', (e) => {
      const event = e as KeyboardEvent;
      if (event.target instanceof HTMLInputElement) return;
      this.keys.add(event.code);
      if (FLIGHT_KEYS.test(event.code)) this.userActive = true;
    });
    this.listen(window, 'keyup', (e) => this.keys.delete((e as KeyboardEvent).code));
    this.listen(window, 'blur', () => this.keys.clear());
    element.style.touchAction = 'none';
    this.listen(element, 'pointerdown', (e) => {
      const p = e as PointerEvent;
      this.dragging = true;
      this.lastX = p.clientX;
      this.lastY = p.clientY;
      this.userActive = true;
    });
    this.listen(window, 'pointerup', () => {
      this.dragging = false;
    });
    this.listen(window, 'pointermove', (e) => {
      const p = e as PointerEvent;
      if (!this.dragging) return;
      this.look(p.clientX - this.lastX, p.clientY - this.lastY);
      this.lastX = p.clientX;
      this.lastY = p.clientY;
    });
    this.listen(element, 'touchstart', (e) => {
      this.touchFly = (e as TouchEvent).touches.length >= 2;
    });
    this.listen(element, 'touchend', (e) => {
      this.touchFly = (e as TouchEvent).touches.length >= 2;
    });
  }

  /** Places the camera at `pose` (height is above the ground there). */
  teleport(pose: CameraPose): void {
    this.yaw = pose.yaw;
    this.pitch = Math.max(-MAX_PITCH, Math.min(MAX_PITCH, pose.pitch));
    this.camera.position.set(
      pose.x,
      this.heights.heightAt(pose.x, pose.z) + Math.max(MIN_HEIGHT, pose.height),
      pose.z,
    );
    this.applyRotation();
  }

  /** The current pose (height above ground). */
  pose(): CameraPose {
    const p = this.camera.position;
    return {
      x: p.x,
      z: p.z,
      height: p.y - this.heights.heightAt(p.x, p.z),
      yaw: this.yaw,
      pitch: this.pitch,
    };
  }

  /** Moves by the held keys over `dt` seconds. */
  update(dt: number): void {
    const k = this.keys;
    const fast = k.has('ShiftLeft') || k.has('ShiftRight') ? FAST_FACTOR : 1;
    const step = SPEED * fast * dt;
    this.camera.getWorldDirection(this.forward);
    this.right.crossVectors(this.forward, this.camera.up).normalize();
    const p = this.camera.position;
    if (k.has('KeyW') || k.has('ArrowUp') || this.touchFly) p.addScaledVector(this.forward, step);
    if (k.has('KeyS') || k.has('ArrowDown')) p.addScaledVector(this.forward, -step);
    if (k.has('KeyD') || k.has('ArrowRight')) p.addScaledVector(this.right, step);
    if (k.has('KeyA') || k.has('ArrowLeft')) p.addScaledVector(this.right, -step);
    if (k.has('KeyE')) p.y += step;
    if (k.has('KeyQ')) p.y -= step;
    const half = this.heights.sizeMeters / 2;
    p.x = Math.max(-half, Math.min(half, p.x));
    p.z = Math.max(-half, Math.min(half, p.z));
    p.y = Math.max(p.y, this.heights.heightAt(p.x, p.z) + MIN_HEIGHT);
  }

  /** Resizes the projection. */
  setAspect(aspect: number): void {
    this.camera.aspect = aspect;
    this.camera.updateProjectionMatrix();
  }

  dispose(): void {
    for (const [target, type, listener] of this.listeners) target.removeEventListener(type, listener);
    this.listeners.length = 0;
  }

  private look(dx: number, dy: number): void {
    this.yaw -= dx * LOOK_RATE;
    this.pitch = Math.max(-MAX_PITCH, Math.min(MAX_PITCH, this.pitch - dy * LOOK_RATE));
    this.applyRotation();
  }

  private applyRotation(): void {
    this.camera.rotation.set(this.pitch, this.yaw, 0);
    this.camera.updateMatrixWorld();
  }

  private listen(target: EventTarget, type: string, listener: EventListener): void {
    target.addEventListener(type, listener);
    this.listeners.push([target, type, listener]);
  }
}
