/**
 * The web front's page: the server's event stream folded into state with `scan` (the CLI's own
 * reducer underneath), drawn once per animation frame while anything changes or runs; the buttons
 * are clicks turned into POSTs.
 *
 * @module
 */
import {
  animationFrames,
  combineLatest,
  concat,
  filter,
  fromEvent,
  map,
  mergeMap,
  of,
  scan,
  share,
  switchMap,
  timer,
} from 'rxjs';
import { seconds } from '../../views/format.js';
import {
  applyRecord,
  batchNow,
  emptyPageState,
  phaseCounts,
  type PageState,
} from '../page-state.js';
import { required, setAttr, setText } from './dom.js';
import { postAction } from './post-action.js';
import { CallsTable } from './render-calls.js';
import { Timeline } from './render-timeline.js';
import { serverEvents } from './server-events.js';

const NOTICE_MS = 6000;

const source = required('[data-source]');
const mode = required('[data-mode]');
const summary = required('[data-batch-phase]');
const status = required('[data-status]');
const counts = required('[data-counts]');
const clock = required('[data-clock]');
const runButton = required<HTMLButtonElement>('[data-action="run"]');
const cancelButton = required<HTMLButtonElement>('[data-action="cancel-batch"]');
const notice = required('[data-notice]');
const calls = new CallsTable(required('[data-rows]'));
const timeline = new Timeline(required('[data-timeline]'), required('[data-axis]'));

// The server's token, which it wrote into the page: the stream and the actions need it.
const token = encodeURIComponent(
  document.querySelector<HTMLMetaElement>('meta[name="agenttool-token"]')?.content ?? '',
);

const state$ = serverEvents(`events?token=${token}`).pipe(
  map((record) => ({ record, receivedAt: performance.now() })),
  scan(applyRecord, emptyPageState()),
  share(),
);

function statusText(state: PageState): string {
  if (!state.connected) return state.version === 0 ? 'connecting…' : 'disconnected, reconnecting…';
  if (state.phase === 'running') return state.mode === 'live' ? 'running' : 'replaying';
  if (state.phase === 'finished') return 'finished';
  return state.batch === undefined ? 'waiting for the turn' : 'ready';
}

function render(state: PageState, now: number): void {
  const live = state.mode === 'live';
  const running = state.phase === 'running';
  const rows = state.batch?.rows ?? [];
  setText(source, state.title);
  setText(mode, state.mode);
  setAttr(summary, 'data-batch-phase', state.phase);
  setText(status, statusText(state));
  const count = phaseCounts(state);
  setText(
    counts,
    (['done', 'failed', 'cancelled', 'running', 'waiting'] as const)
      .filter((phase) => count[phase] > 0)
      .map((phase) => `${count[phase]} ${phase}`)
      .join(' · '),
  );
  setText(clock, state.phase === 'idle' ? '' : seconds(now));
  setText(runButton, `${live ? 'Run' : 'Replay'} ${state.phase === 'idle' ? 'the turn' : 'again'}`);
  runButton.disabled = running || !state.connected;
  cancelButton.hidden = !live;
  cancelButton.disabled = !running;
  calls.render(state.run, rows, now, live, running);
  timeline.render(state.run, rows, now, running);
}

// Each frame draws the latest state, unless nothing changed and nothing runs.
let drawn = -1;
combineLatest([state$, animationFrames()]).subscribe(([state, frame]) => {
  if (state.version === drawn && state.phase !== 'running') return;
  drawn = state.version;
  render(state, batchNow(state, frame.timestamp));
});

function actionPath(button: HTMLButtonElement): string {
  switch (button.dataset.action) {
    case 'run':
      return 'run';
    case 'cancel-batch':
      return 'cancel';
    default:
      return `calls/${button.dataset.callIndex}/cancel`;
  }
}

fromEvent<MouseEvent>(document, 'click')
  .pipe(
    map((event) => (event.target as Element).closest<HTMLButtonElement>('button[data-action]')),
    filter((button): button is HTMLButtonElement => button !== null && !button.disabled),
    mergeMap((button) => postAction(`${actionPath(button)}?token=${token}`)),
    switchMap((message) =>
      message === '' ? of('') : concat(of(message), timer(NOTICE_MS).pipe(map(() => ''))),
    ),
  )
  .subscribe((message) => {
    notice.hidden = message === '';
    setText(notice, message);
  });
