import { expect } from 'chai';
import { defer, map, NEVER, of, throwError, timer } from 'rxjs';
import type { Tool } from '../../lib/contract.js';
import { CancelledError } from '../../lib/errors.js';
import { batchResults, chains, type Job } from '../../operators/index.js';
import { final, progress, stubTool } from '../../testing/index.js';

const job = (tool: Tool, id: string): Job => ({ tool, call: { id, args: '' } });
const later = (name: string, ms: number, output: string, props = {}) =>
  stubTool(name, timer(ms).pipe(map(() => final(output))), props);

describe('batchResults', () => {
  it('resolves to the settled results in job order, whatever the completion order', async () => {
    const failure = new Error('boom');
    const jobs = [
      job(later('slow', 20, 'slow done'), 's'),
      job(
        stubTool(
          'fail',
          throwError(() => failure),
        ),
        'f',
      ),
      job(stubTool('quick', of(progress('half'), final('quick done'))), 'q'),
    ];
    const settled = await batchResults(jobs);
    expect(settled).to.deep.equal([
      { result: { output: 'slow done' } },
      { error: failure },
      { result: { output: 'quick done' } },
    ]);
  });

  it('resolves to an empty list for an empty batch', async () => {
    expect(await batchResults([])).to.deep.equal([]);
  });

  it('settles every unfinished job with a CancelledError when the signal aborts', async () => {
    const controller = new AbortController();
    const jobs = [
      job(stubTool('done', of(final('ok'))), 'a'),
      job(stubTool('hangs', NEVER), 'b'),
      job(
        stubTool(
          'aborts',
          defer(() => (controller.abort(), NEVER)),
        ),
        'c',
      ),
      job(stubTool('queued', of(final('never'))), 'd'),
    ];
    const settled = await batchResults(jobs, { maxParallel: 3, signal: controller.signal });
    expect(settled).to.deep.equal([
      { result: { output: 'ok' } },
      { error: new CancelledError() },
      { error: new CancelledError() },
      { error: new CancelledError() },
    ]);
  });

  it('passes the options on: a serial batch runs its calls in turn', async () => {
    const order: string[] = [];
    const step = (name: string, ms: number) =>
      stubTool(
        name,
        defer(() => {
          order.push(`start ${name}`);
          return timer(ms).pipe(map(() => (order.push(`end ${name}`), final(name))));
        }),
      );
    await batchResults([job(step('a', 10), 'a'), job(step('b', 1), 'b')], { sequential: true });
    expect(order).to.deep.equal(['start a', 'end a', 'start b', 'end b']);
  });
});

describe('chains', () => {
  const plain = (name: string, props = {}) => stubTool(name, NEVER, props);

  it('gives one chain per resource in order of first index, and a chain per free job', () => {
    const jobs = [
      job(plain('read', { resource: 'fs' }), '0'),
      job(plain('search'), '1'),
      job(plain('bash', { resource: 'shell' }), '2'),
      job(plain('write', { resource: 'fs' }), '3'),
      job(plain('restart', { resource: 'shell' }), '4'),
      job(plain('search'), '5'),
    ];
    expect(chains(jobs)).to.deep.equal([[0, 3], [1], [2, 4], [5]]);
  });

  it('gives a serial batch one chain, whatever makes it serial', () => {
    const free = [
      job(plain('a', { resource: 'fs' }), '0'),
      job(plain('b'), '1'),
      job(plain('c'), '2'),
    ];
    expect(chains(free, { sequential: true })).to.deep.equal([[0, 1, 2]]);
    expect(chains(free, { maxParallel: 1 })).to.deep.equal([[0, 1, 2]]);
    const withSequential = [...free, job(plain('d', { sequential: true, resource: 'fs' }), '3')];
    expect(chains(withSequential)).to.deep.equal([[0, 1, 2, 3]]);
  });

  it('gives no chain for an empty batch', () => {
    expect(chains([])).to.deep.equal([]);
    expect(chains([], { sequential: true })).to.deep.equal([]);
  });
});
