/**
 * The scripted tour: a fly-over, teleports and region changes (one through a gate), advanced by
 * frame time so it runs the same under `?auto=0` as live. Any user input stops it.
 */

import type { CameraPose } from './camera/camera-pose';
import type { FlyCamera } from './camera/fly-camera';
import { poseNear, type RegionName } from './regions';
import type { RegionGates } from './scenes/region-gates';

/** One step of the tour. */
export type TourStep =
  | { kind: 'fly'; from: CameraPose; to: CameraPose; seconds: number }
  | { kind: 'teleport'; pose: CameraPose }
  | { kind: 'region'; name: RegionName }
  | { kind: 'compare'; on: boolean }
  | { kind: 'wait'; seconds: number };

/** Builds the default tour over the demo's regions; the gate leg flies through the valley-desert gate. */
export function defaultTour(gates: RegionGates): TourStep[] {
  const gate = gates.gateBetween('valley', 'desert')!;
  const yawThroughGate = Math.atan2(-gate.nx, -gate.nz);
  const before: CameraPose = {
    x: gate.centre.x - gate.nx * 120,
    z: gate.centre.z - gate.nz * 120,
    height: 8,
    yaw: yawThroughGate,
    pitch: -0.03,
  };
  const after: CameraPose = {
    x: gate.centre.x + gate.nx * 150,
    z: gate.centre.z + gate.nz * 150,
    height: 8,
    yaw: yawThroughGate,
    pitch: -0.03,
  };
  return [
    { kind: 'compare', on: false },
    { kind: 'region', name: 'valley' },
    {
      kind: 'fly',
      from: poseNear('valley', -600, 900, 400, -0.8, -0.45),
      to: poseNear('valley', 200, -100, 120, -0.3, -0.3),
      seconds: 10,
    },
    { kind: 'teleport', pose: before },
    { kind: 'region', name: 'valley' },
    { kind: 'fly', from: before, to: after, seconds: 6 },
    // Through the gate the desert is loading; its dunes lie ahead, past the gate's grassland.
    { kind: 'teleport', pose: poseNear('desert', 0, 260, 60, 0, -0.3) },
    { kind: 'wait', seconds: 3 },
    { kind: 'teleport', pose: poseNear('snowfield', 0, 400, 250, 0, -0.35) },
    { kind: 'region', name: 'snowfield' },
    {
      kind: 'fly',
      from: poseNear('snowfield', 0, 400, 250, 0, -0.35),
      to: poseNear('snowfield', 200, -300, 30, 0.6, -0.1),
      seconds: 10,
    },
    { kind: 'teleport', pose: poseNear('valley', 0, 200, 20, 0.3, -0.12) },
    { kind: 'region', name: 'valley' },
    { kind: 'wait', seconds: 4 },
    // It ends in the comparison view: Tessera's bytes beside plain three.js's, over the village.
    { kind: 'compare', on: true },
    { kind: 'wait', seconds: 8 },
  ];
}

/** Plays {@link TourStep}s in a loop while {@link Tour.playing}. */
export class Tour {
  playing = false;
  private index = 0;
  private elapsed = 0;
  private readonly pose: CameraPose = { x: 0, z: 0, height: 0, yaw: 0, pitch: 0 };

  constructor(
    private readonly steps: readonly TourStep[],
    private readonly camera: FlyCamera,
    private readonly changeRegion: (name: RegionName) => void,
    private readonly setCompare: (on: boolean) => void = () => {},
  ) {}

  start(): void {
    this.playing = true;
    this.index = 0;
    this.elapsed = 0;
    this.camera.userActive = false;
  }

  stop(): void {
    this.playing = false;
  }

  /** Advances by `dt` seconds. */
  update(dt: number): void {
    if (!this.playing) return;
    if (this.camera.userActive) {
      this.stop();
      return;
    }
    // Instant steps run back to back; a timed one consumes the frame.
    for (let guard = 0; guard < this.steps.length; guard++) {
      const step = this.steps[this.index];
      if (step.kind === 'teleport') {
        this.camera.teleport(step.pose);
        this.next();
      } else if (step.kind === 'region') {
        this.changeRegion(step.name);
        this.next();
      } else if (step.kind === 'compare') {
        this.setCompare(step.on);
        this.next();
      } else {
        this.elapsed += dt;
        const t = Math.min(1, this.elapsed / step.seconds);
        if (step.kind === 'fly') this.camera.teleport(lerpPose(step.from, step.to, smooth(t), this.pose));
        if (t >= 1) this.next();
        return;
      }
    }
  }

  private next(): void {
    this.index = (this.index + 1) % this.steps.length;
    this.elapsed = 0;
  }
}

function smooth(t: number): number {
  return t * t * (3 - 2 * t);
}

function lerpPose(a: CameraPose, b: CameraPose, t: number, out: CameraPose): CameraPose {
  out.x = a.x + (b.x - a.x) * t;
  out.z = a.z + (b.z - a.z) * t;
  out.height = a.height + (b.height - a.height) * t;
  out.yaw = a.yaw + (b.yaw - a.yaw) * t;
  out.pitch = a.pitch + (b.pitch - a.pitch) * t;
  return out;
}
