import { expect } from 'chai';
import { timer, map } from 'rxjs';
import type { OutputItem } from '../../lib/open-responses.js';
import { NoToolError } from '../../lib/errors.js';
import { textPart } from '../../lib/result.js';
import { ToolSet } from '../../lib/tool-set.js';
import { tool } from '../../lib/tool.js';
import { batchResults, jobsFromItems, missingTool, toOutputItems } from '../../operators/index.js';
import { final, stubTool } from '../../testing/index.js';

const call = (call_id: string, name: string, args = ''): OutputItem => ({
  type: 'function_call',
  call_id,
  name,
  arguments: args,
});

describe('jobsFromItems', () => {
  const read = stubTool('read', timer(0).pipe(map(() => final('text'))));
  const tools = new ToolSet([read]);

  it('takes the function_call items in order and skips every other item', () => {
    const items: OutputItem[] = [
      { type: 'message', role: 'assistant', content: [] },
      call('r1', 'read', '{"path":"/a"}'),
      { type: 'reasoning', summary: [] },
      call('r2', 'read'),
    ];
    const jobs = jobsFromItems(items, tools);
    expect(jobs).to.have.length(2);
    expect(jobs.map((job) => job.call)).to.deep.equal([
      { id: 'r1', args: '{"path":"/a"}' },
      { id: 'r2', args: '' },
    ]);
    expect(jobs[0].tool).to.equal(read);
  });

  it('gives an unknown name a job that fails with a NoToolError', async () => {
    const jobs = jobsFromItems([call('x1', 'nope')], tools);
    expect(jobs[0].tool.name).to.equal('nope');
    const [settled] = await batchResults(jobs);
    expect(settled).to.have.property('error').that.is.instanceOf(NoToolError);
    const error = (settled as { error: NoToolError }).error;
    expect(error.code).to.equal('no_tool');
    expect(error.message).to.equal('no tool for call "x1": unknown tool "nope"');
    expect(error.callId).to.equal('x1');
    expect(error.toolName).to.equal('nope');
  });

  it('exports the stand-in tool, failing every call with a NoToolError', async () => {
    const [settled] = await batchResults([
      { tool: missingTool('gone'), call: { id: 'g1', args: '' } },
    ]);
    expect((settled as { error: Error }).error).to.deep.equal(new NoToolError('g1', 'gone'));
  });
});

describe('toOutputItems', () => {
  const jobs = jobsFromItems([call('a', 'x'), call('b', 'x'), call('c', 'x'), call('d', 'x')], {
    lookup: () => undefined,
  });

  it('builds one function_call_output per job, in job order, with Error: applied once', () => {
    const items = toOutputItems(jobs, [
      { result: { output: '42', details: { secret: true } } },
      { error: new Error('disk full') },
      { error: new Error('Error: already prefixed') },
      { result: { output: [textPart('a part')] } },
    ]);
    expect(items).to.deep.equal([
      { type: 'function_call_output', call_id: 'a', output: '42' },
      { type: 'function_call_output', call_id: 'b', output: 'Error: disk full' },
      { type: 'function_call_output', call_id: 'c', output: 'Error: already prefixed' },
      {
        type: 'function_call_output',
        call_id: 'd',
        output: [{ type: 'input_text', text: 'a part' }],
      },
    ]);
  });

  it('refuses results that do not match the jobs one to one', () => {
    expect(() => toOutputItems(jobs, [{ result: { output: '' } }])).to.throw(RangeError);
  });
});

describe('a model turn through the glue', () => {
  it('answers every function_call in the model order although they complete in reverse', async () => {
    const slow = (name: string, delay: number) =>
      stubTool(name, timer(delay).pipe(map(() => final(`${name} done`))));
    const answer = tool({ name: 'answer', description: 'The answer', execute: () => 42 });
    const broken = tool({
      name: 'broken',
      description: 'Always fails',
      execute: () => {
        throw new Error('Error: no network');
      },
    });
    const tools = new ToolSet([slow('first', 30), slow('second', 10), answer, broken]);
    const items = [
      call('c1', 'first'),
      { type: 'message', role: 'assistant', content: [] },
      call('c2', 'second'),
      call('c3', 'broken'),
      call('c4', 'answer'),
      call('c5', 'missing'),
    ];
    const jobs = jobsFromItems(items, tools);
    const outputs = toOutputItems(jobs, await batchResults(jobs));
    expect(outputs).to.deep.equal([
      { type: 'function_call_output', call_id: 'c1', output: 'first done' },
      { type: 'function_call_output', call_id: 'c2', output: 'second done' },
      { type: 'function_call_output', call_id: 'c3', output: 'Error: no network' },
      { type: 'function_call_output', call_id: 'c4', output: '42' },
      {
        type: 'function_call_output',
        call_id: 'c5',
        output: 'Error: no tool for call "c5": unknown tool "missing"',
      },
    ]);
  });
});
