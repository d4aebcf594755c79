/** A one-line progress bar with rate and ETA, redrawn on stderr at most 10 times a second. */
export class ProgressBar {
  private readonly started = performance.now();
  private lastDraw = 0;

  constructor(
    private readonly label: string,
    private readonly unit: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  /** Shows `done` of `total` units. */
  update(done: number, total: number): void {
    const now = performance.now();
    if (done < total && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const seconds = (now - this.started) / 1000;
    const rate = done / Math.max(seconds, 1e-3);
    const eta = rate > 0 ? (total - done) / rate : 0;
    const width = 30;
    const filled = Math.round((done / Math.max(total, 1)) * width);
    const line =
      `${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${((done / Math.max(total, 1)) * 100).toFixed(0)}% ` +
      `${done}/${total} ${this.unit} ${rate.toFixed(0)} ${this.unit}/s ETA ${formatSeconds(eta)}`;
    this.stream.write(this.stream.isTTY ? `\r${line}` : `${line}\n`);
    if (done >= total && this.stream.isTTY) this.stream.write('\n');
  }
}

function formatSeconds(s: number): string {
  if (s < 60) return `${s.toFixed(0)}s`;
  return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
}
