/**
 * The web front links a call to its trace (`agenttool ui --otlp ... --trace-url ...`,
 * docs/telemetry.md): the live turn sends each call's span ids as it starts, and the page shows
 * them in the call's row, as a link where `--trace-url` says traces are shown.
 */
import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { bundledTools } from '../../cli/tools/index.js';
import { CallControls } from '../../cli/ui/call-controls.js';
import { liveTurn } from '../../cli/ui/live-turn.js';
import { applyRecord, emptyPageState } from '../../cli/ui/page-state.js';
import { CallsTable } from '../../cli/ui/page/render-calls.js';
import type { StreamRecord, TraceRecord } from '../../cli/ui/run-records.js';
import { ToolSet, type OutputItem } from '../../index.js';
import { FakeElement, installPageDom } from '../support/page-dom.js';
import { startTracing } from '../support/otel.js';

const TURN: OutputItem[] = [
  { type: 'function_call', call_id: 'a', name: 'slow_count', arguments: '{"to":1,"step_ms":1}' },
  { type: 'function_call', call_id: 'b', name: 'slow_count', arguments: '{"to":1,"step_ms":1}' },
];

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

function page(records: StreamRecord[]): FakeElement {
  const state = records.reduce(
    (s, record) => applyRecord(s, { record, receivedAt: 100 }),
    emptyPageState(),
  );
  const tbody = new FakeElement('tbody');
  new CallsTable(tbody as never).render(state.run, state.batch!.rows, 10, true, true, state);
  return tbody;
}

const batch: StreamRecord = {
  type: 'batch',
  jobs: [{ index: 0, callId: 'a', name: 'slow_count', args: '{}', resource: '' }],
};

describe('the web front links a call to its trace', () => {
  let removeDom: () => void;
  before(() => (removeDom = installPageDom()));
  after(() => removeDom());

  it('sends each call’s span ids while the command traces, and none while it does not', async () => {
    const source = liveTurn(TURN, new ToolSet(bundledTools), { title: 't' });
    const run = () =>
      lastValueFrom(
        source
          .run({ signal: new AbortController().signal, calls: new CallControls(['a', 'b']) })
          .pipe(toArray()),
      );
    expect((await run()).filter((r) => r.type === 'trace')).to.deep.equal([]);
    const tracing = startTracing();
    try {
      const traces = (await run()).filter((r): r is TraceRecord => r.type === 'trace');
      const spans = tracing.named('execute_tool slow_count');
      expect(traces.map((t) => t.index).sort()).to.deep.equal([0, 1]);
      for (const t of traces) expect(spans.map((s) => s.spanContext().spanId)).to.include(t.spanId);
    } finally {
      await tracing.stop();
    }
  });

  it('links the row to the trace where --trace-url says, the ids put in the URL', () => {
    const tbody = page([
      {
        type: 'session',
        mode: 'live',
        title: 't',
        traceUrl: 'http://localhost:16686/trace/{traceId}?uiFind={spanId}',
      },
      batch,
      { type: 'trace', index: 0, traceId: TRACE, spanId: '00f067aa0ba902b7', at: 0 },
    ]);
    const [link] = tbody.querySelectorAll('.trace');
    expect(link!.tagName).to.equal('a');
    expect(link!.dataset.traceId).to.equal(TRACE);
    expect((link as unknown as { href: string }).href).to.equal(
      `http://localhost:16686/trace/${TRACE}?uiFind=00f067aa0ba902b7`,
    );
    expect(link!.textContent).to.equal('trace 4bf92f35');
  });

  it('shows the trace id alone without --trace-url, and nothing for a call without a span', () => {
    const tbody = page([
      { type: 'session', mode: 'live', title: 't' },
      batch,
      { type: 'trace', index: 0, traceId: TRACE, spanId: '00f067aa0ba902b7', at: 0 },
    ]);
    const [shown] = tbody.querySelectorAll('.trace');
    expect(shown!.tagName).to.equal('span');
    expect(shown!.title).to.equal(`trace ${TRACE}, span 00f067aa0ba902b7`);
    expect(
      page([{ type: 'session', mode: 'live', title: 't' }, batch]).querySelectorAll('.trace'),
    ).to.deep.equal([]);
  });
});
