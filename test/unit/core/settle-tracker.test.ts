import { describe, expect, it } from 'vitest';
import { TesseraError } from '../../../src/core/errors';
import { QUIET_PHASES_TO_SETTLE, SettleTracker } from '../../../src/core/vt/settle-tracker';

describe('SettleTracker', () => {
  it('is quiet only after feedback at enough distinct jitter offsets found nothing missing', () => {
    const t = new SettleTracker();
    t.noteRegistration(1);
    // Feedback rendered in the registration frame predates the material: never counts.
    t.noteFeedback(1, 0);
    expect(t.quiet).toBe(false);
    for (let f = 2; f < 2 + QUIET_PHASES_TO_SETTLE - 1; f++) t.noteFeedback(f, 0);
    expect(t.quiet).toBe(false);
    // The same offset again (16 frames later) adds nothing.
    t.noteFeedback(2 + 16, 0);
    expect(t.quiet).toBe(false);
    t.noteFeedback(40, 0);
    expect(t.quiet).toBe(true);
  });

  it('starts over when a feedback finds pages missing, or a material registers', () => {
    const t = new SettleTracker();
    for (let f = 1; f <= 8; f++) t.noteFeedback(f, 0);
    expect(t.quiet).toBe(true);
    t.noteFeedback(9, 3);
    expect(t.quiet).toBe(false);
    for (let f = 10; f <= 13; f++) t.noteFeedback(f, 0);
    expect(t.quiet).toBe(true);
    t.noteRegistration(13);
    expect(t.quiet).toBe(false);
  });

  it('counts the jitter offset a feedback was rendered at, not its frame (a pass every 4th frame)', () => {
    const t = new SettleTracker();
    // Frames 4, 8, 12, 16 are offsets 4, 8, 12, 0 by frame, but jitter frames 1..4 by pass.
    for (let pass = 1; pass <= QUIET_PHASES_TO_SETTLE - 1; pass++) t.noteFeedback(64 + 4 * pass, 0, pass);
    expect(t.quiet).toBe(false);
    // Frame 80 would repeat frame 64's offset; jitter frame 16 is a new one.
    t.noteFeedback(64 + 4 * 16, 0, 16);
    expect(t.quiet).toBe(true);
    // Sixteen frames apart by frame but one jitter frame apart: four distinct offsets by jitter.
    const u = new SettleTracker();
    for (let pass = 1; pass <= QUIET_PHASES_TO_SETTLE; pass++) u.noteFeedback(16 * pass, 0, pass);
    expect(u.quiet).toBe(true);
  });

  it('resolves waiters whose start frame the settled feedback reaches, and rejects the rest on dispose', async () => {
    const t = new SettleTracker();
    const early = t.whenSettled(1);
    const late = t.whenSettled(20);
    t.noteFeedback(5, 0);
    t.resolve();
    await expect(early).resolves.toBe(5);
    expect(t.waiting).toBe(1);
    t.rejectAll(new TesseraError('disposed', 'gone'));
    await expect(late).rejects.toMatchObject({ code: 'disposed' });
    expect(t.waiting).toBe(0);
  });
});
