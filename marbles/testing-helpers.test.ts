import { expect } from 'chai';
import { executeBatch } from '../operators/execute-batch.js';
import {
  errorEvent,
  final,
  finalEvent,
  progress,
  progressEvent,
  stubTool,
} from '../testing/index.js';
import { testScheduler } from './support.js';

describe('agenttool/testing', () => {
  it('runs the documented example: a stub from a cold observable, pinned by its subscriptions', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('  --a--(b|)', { a: progress('half'), b: final('done') });
      const aSubs = '   ^----!';
      const expected = '--p--(f|)';
      const read = stubTool('read', a, { resource: 'fs' });
      expectObservable(executeBatch([{ tool: read, call: { id: 'r1', args: '' } }])).toBe(
        expected,
        { p: progressEvent(0, 'r1', 'half'), f: finalEvent(0, 'r1', 'done') },
      );
      expectSubscriptions(a.subscriptions).toBe(aSubs);
    });
  });

  it('builds a stub with the given properties, an empty description by default', () => {
    testScheduler().run(({ cold }) => {
      const stub = stubTool('bash', cold('-(f|)', { f: final('ok') }), {
        resource: 'shell',
        sequential: false,
      });
      expect(stub.name).to.equal('bash');
      expect(stub.description).to.equal('');
      expect(stub.resource).to.equal('shell');
      expect(stub.parameters).to.equal(undefined);
      // prettier-ignore
      expect(stubTool('x', cold('         |'), { description: 'Runs x' }).description).to.equal('Runs x');
    });
  });

  it('builds a stub from a function of the call', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const echo = stubTool('echo', (call) => cold('-(f|)', { f: final(call.args) }));
      const jobs = [
        { tool: echo, call: { id: 'e1', args: 'one' } },
        { tool: echo, call: { id: 'e2', args: 'two' } },
      ];
      const expected = '                            -(ab|)';
      expectObservable(executeBatch(jobs)).toBe(expected, {
        a: finalEvent(0, 'e1', 'one'),
        b: finalEvent(1, 'e2', 'two'),
      });
    });
  });

  it('builds tool events and execution events from text, parts or whole results', () => {
    expect(progress('half')).to.deep.equal({ final: false, result: { output: 'half' } });
    expect(final([{ type: 'input_text', text: 'x' }])).to.deep.equal({
      final: true,
      result: { output: [{ type: 'input_text', text: 'x' }] },
    });
    expect(final({ output: 'done', details: { n: 1 } })).to.deep.equal({
      final: true,
      result: { output: 'done', details: { n: 1 } },
    });
    const boom = new Error('boom');
    expect(errorEvent(2, 'c', boom)).to.deep.equal({
      index: 2,
      callId: 'c',
      final: true,
      error: boom,
    });
  });
});
