/**
 * `liveTurn`'s `keyEachRun` (cli/ui/live-turn.ts), which `agenttool ui --redis` sets: each run of
 * the page gives its calls an idempotency key of that run, so calls whose keys name their jobs
 * (the worker fleet) run again when the turn runs again; without it a call keeps its own id.
 */
import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { CallControls } from '../../cli/ui/call-controls.js';
import { liveTurn } from '../../cli/ui/live-turn.js';
import { rawTool, textResult, ToolSet } from '../../index.js';

const keys: (string | undefined)[] = [];
const seeKey = rawTool({
  name: 'see_key',
  description: 'Says the key its call runs under.',
  parameters: { type: 'object' },
  execute: (call, context) => {
    keys.push(context.call.idempotencyKey);
    return textResult(call.id);
  },
});
const items = [{ type: 'function_call', call_id: 'c1', name: 'see_key', arguments: '{}' }] as never;

async function twice(keyEachRun: boolean): Promise<(string | undefined)[]> {
  keys.length = 0;
  const source = liveTurn(items, new ToolSet([seeKey]), { title: 't', keyEachRun });
  for (let i = 0; i < 2; i++)
    await lastValueFrom(
      source
        .run({ signal: new AbortController().signal, calls: new CallControls(['c1']) })
        .pipe(toArray()),
    );
  return [...keys];
}

describe('liveTurn: a key for each run', () => {
  it('gives each run its own keys with keyEachRun, and the call ids without', async () => {
    const keyed = await twice(true);
    expect(keyed).to.have.length(2);
    expect(keyed[0]).to.match(/^[0-9a-f-]{36}\/c1$/);
    expect(keyed[1]).to.match(/\/c1$/);
    expect(keyed[0]).to.not.equal(keyed[1]);
    expect(await twice(false)).to.deep.equal(['c1', 'c1']);
  });
});
