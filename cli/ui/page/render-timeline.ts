/**
 * The timeline: a swimlane per resource and a lane per slot in use (see `layoutTimeline`), each
 * call a bar from its start to its end (to now while it runs), drawn as the batch goes.
 *
 * Stable hooks: `.lane[data-lane]`, and per started call `.span[data-call-index][data-lane]
 * [data-start][data-end][data-phase]` (ms since the batch started; no `data-end` while running).
 *
 * @module
 */
import type { CallRow } from '../../call-state.js';
import { seconds } from '../../views/format.js';
import { layoutTimeline } from '../timeline-lanes.js';
import { element, setAttr, setStyle, setTitle } from './dom.js';

/** Tick spacings the axis may use, in ms. */
const STEPS = [100, 200, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000];

function tickStep(span: number): number {
  return STEPS.find((step) => span / step <= 8) ?? Math.ceil(span / 8 / 60_000) * 60_000;
}

function percent(ms: number, span: number): string {
  return `${((Math.max(0, ms) / span) * 100).toFixed(2)}%`;
}

/** Keeps the lanes and axis elements showing a batch's calls; rebuilt on a new run. */
export class Timeline {
  private run = -1;
  private laneKeys = '';
  private readonly tracks = new Map<string, HTMLElement>();
  private readonly spans = new Map<number, HTMLElement>();
  private step = 0;
  private readonly now: HTMLElement = element('div', 'now');

  constructor(
    private readonly lanes: HTMLElement,
    private readonly axis: HTMLElement,
  ) {}

  /** Draws `rows` of run number `run` at batch time `now` (ms). */
  render(run: number, rows: readonly CallRow[], now: number, running: boolean): void {
    const layout = layoutTimeline(rows);
    const keys = layout.lanes.map((lane) => lane.key).join('\n');
    if (run !== this.run || keys !== this.laneKeys) {
      if (run !== this.run) this.spans.clear();
      this.run = run;
      this.laneKeys = keys;
      this.tracks.clear();
      this.lanes.replaceChildren(
        ...layout.lanes.map((lane) => {
          const el = element('div', 'lane');
          el.dataset.lane = lane.key;
          const track = element('div', 'track');
          this.tracks.set(lane.key, track);
          el.append(element('div', 'lane-label', lane.label), track);
          return el;
        }),
      );
    }
    // Leave room on the right while it runs, so the bars do not run into the edge.
    const span = Math.max(1000, running ? now * 1.1 : now);
    for (const row of rows) {
      const lane = layout.laneOf[row.index]!;
      const track = this.tracks.get(lane);
      if (track === undefined) continue;
      let bar = this.spans.get(row.index);
      if (bar === undefined) {
        bar = element('div', 'span');
        bar.dataset.callIndex = String(row.index);
        bar.append(element('span', 'label', `#${row.index} ${row.name}`));
        this.spans.set(row.index, bar);
      }
      if (bar.parentElement !== track) track.append(bar);
      const end = row.endedAt >= 0 ? row.endedAt : Math.max(row.startedAt, now);
      setAttr(bar, 'data-lane', lane);
      setAttr(bar, 'data-phase', row.phase);
      setAttr(bar, 'data-start', String(row.startedAt));
      setAttr(bar, 'data-end', row.endedAt >= 0 ? String(row.endedAt) : undefined);
      setTitle(bar, `#${row.index} ${row.name}: ${row.phase}, ${seconds(end - row.startedAt)}`);
      setStyle(bar, 'left', percent(row.startedAt, span));
      setStyle(bar, 'width', percent(end - row.startedAt, span));
    }
    this.drawAxis(span, now, running);
  }

  private drawAxis(span: number, now: number, running: boolean): void {
    const step = tickStep(span);
    if (step !== this.step) {
      this.step = step;
      this.axis.replaceChildren(this.now);
      for (let at = 0; at <= span * 3; at += step) {
        const tick = element('span', 'tick', seconds(at).replace(/\.00s$/, 's'));
        tick.dataset.at = String(at);
        this.axis.append(tick);
      }
    }
    this.axis.querySelectorAll<HTMLElement>('.tick').forEach((tick) => {
      const at = Number(tick.dataset.at);
      tick.hidden = at > span;
      setStyle(tick, 'left', percent(at, span));
    });
    this.now.hidden = !running;
    setStyle(this.now, 'left', percent(now, span));
  }
}
