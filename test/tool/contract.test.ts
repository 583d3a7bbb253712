import { expect } from 'chai';
import {
  annotationsOf,
  CallContext,
  CancelledError,
  confinedBy,
  definition,
  errorResult,
  filePart,
  NoToolError,
  rawTool,
  recordOf,
  TimeoutError,
  ToolPanicError,
  ToolSet,
  toResult,
  ValidationError,
  type Recordable,
  type Tool,
} from '../../index.js';
import { progressResult } from '../../lib/result.js';
import { of } from 'rxjs';

const plain = (name: string, extra: Partial<Tool> = {}): Tool => ({
  name,
  description: `${name} tool`,
  execute: () => of({ final: true, result: { output: name } }),
  ...extra,
});

describe('errors', () => {
  it('carry stable codes and one-line messages', () => {
    expect(new ValidationError('tags[1]', 'expected string, got 2').message).to.equal(
      'invalid arguments: tags[1]: expected string, got 2',
    );
    expect(new ValidationError('', 'expected object, got array').message).to.equal(
      'invalid arguments: expected object, got array',
    );
    expect(new ValidationError('a', 'x').code).to.equal('invalid_arguments');
    expect(new CancelledError().code).to.equal('cancelled');
    expect(new TimeoutError(500).message).to.equal('call timed out after 500 ms');
    expect(new TimeoutError(500).code).to.equal('timeout');
    expect(new NoToolError('call_9', 'bogus').message).to.equal(
      'no tool for call "call_9": unknown tool "bogus"',
    );
    expect(new NoToolError('call_9').code).to.equal('no_tool');
  });

  it('ToolPanicError keeps the thrown value and its stack, and says one line', () => {
    const cause = new Error('line one\nline two');
    const panic = new ToolPanicError('bash', cause);
    expect(panic.message).to.equal('tool "bash" panicked: line one line two');
    expect(panic.value).to.equal(cause);
    expect(panic.stack).to.equal(cause.stack);
    expect(panic.tool).to.equal('bash');
  });
});

describe('errorResult', () => {
  it('adds "Error: " once and never the stack', () => {
    expect(errorResult(new Error('boom'))).to.deep.equal({ output: 'Error: boom' });
    expect(errorResult(new Error('Error: boom'))).to.deep.equal({ output: 'Error: boom' });
    expect(errorResult('plain string')).to.deep.equal({ output: 'Error: plain string' });
    expect(String(errorResult(new ToolPanicError('t', new Error('x'))).output)).to.not.include(
      '\n',
    );
  });
});

describe('toResult and progressResult', () => {
  it('files become input_file parts with a data URL', () => {
    expect(
      toResult(filePart({ filename: 'a.pdf', data: 'JVBE', mimeType: 'application/pdf' })),
    ).to.deep.equal({
      output: [
        { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBE' },
      ],
    });
  });

  it('a ProgressInfo becomes its message with the numbers as details', () => {
    expect(progressResult({ progress: 3, total: 10, message: 'three' })).to.deep.equal({
      output: 'three',
      details: { progress: 3, total: 10, message: 'three' },
    });
    expect(progressResult('text')).to.deep.equal({ output: 'text' });
    expect(progressResult({ output: 'r', details: 1 })).to.deep.equal({ output: 'r', details: 1 });
  });
});

describe('records', () => {
  class Dir implements Recordable {
    constructor(readonly path: string) {}
    recordNS() {
      return 'fs:temp-dir';
    }
  }

  it('recordOf gives the namespace and the JSON text', () => {
    expect(recordOf(new Dir('/tmp/x'))).to.deep.equal({
      ns: 'fs:temp-dir',
      data: '{"path":"/tmp/x"}',
    });
  });

  it('recordOf gives undefined for details that are not Recordable', () => {
    expect(recordOf({ path: 'x' })).to.equal(undefined);
    expect(recordOf(undefined)).to.equal(undefined);
  });

  it('an empty namespace or an unserialisable value is an error', () => {
    expect(() => recordOf({ recordNS: () => '' })).to.throw(/empty namespace/);
    const cyclic: { recordNS(): string; self?: unknown } = { recordNS: () => 'a:b' };
    cyclic.self = cyclic;
    expect(() => recordOf(cyclic)).to.throw(/record a:b/);
  });
});

describe('CallContext', () => {
  it('creates its signal only when read, aborted if the call was already cancelled', () => {
    const context = new CallContext({ id: 'c', args: '' });
    context.cancel();
    expect(context.signal.aborted).to.equal(true);
    expect(context.signal.reason).to.be.instanceOf(CancelledError);
  });

  it('drops progress after the call finished or was cancelled, and never aborts after finish', () => {
    const seen: unknown[] = [];
    const context = new CallContext(
      { id: 'c', args: '' },
      { sink: { progress: (r) => seen.push(r.output) } },
    );
    context.progress('one');
    context.finish();
    context.progress('two');
    context.cancel();
    expect(seen).to.deep.equal(['one']);
    expect(context.signal.aborted).to.equal(false);
  });
});

describe('readers', () => {
  it('annotationsOf gives {} for a tool that states none', () => {
    expect(annotationsOf(plain('a'))).to.deep.equal({});
    expect(annotationsOf(plain('a', { annotations: { readOnlyHint: true } }))).to.deep.equal({
      readOnlyHint: true,
    });
  });

  it('confinedBy answers not confined for a tool that does not say, and never a "by" when not confined', () => {
    const context = new CallContext({ id: 'c', args: '' });
    expect(confinedBy(plain('a'), '{}', context)).to.deep.equal({ confined: false, by: '' });
    const sandboxed = plain('bash', {
      confined: (args) =>
        args.includes('escape')
          ? { confined: false, by: 'ignored' }
          : { confined: true, by: 'landlock' },
    });
    expect(confinedBy(sandboxed, '{"cmd":"ls"}', context)).to.deep.equal({
      confined: true,
      by: 'landlock',
    });
    expect(confinedBy(sandboxed, '{"escape":true}', context)).to.deep.equal({
      confined: false,
      by: '',
    });
  });
});

describe('definition and ToolSet', () => {
  it('definition gives parameters even for a tool without arguments, and strict always, true only for strict', () => {
    expect(definition(plain('now'))).to.deep.equal({
      type: 'function',
      name: 'now',
      description: 'now tool',
      parameters: { type: 'object', properties: {}, required: [] },
      strict: false,
    });
    expect(definition(plain('now', { strict: true }))).to.deep.equal({
      type: 'function',
      name: 'now',
      description: 'now tool',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
      strict: true,
    });
  });

  it('looks tools up by name and lists definitions in order', () => {
    const set = new ToolSet([plain('b'), plain('a')]);
    expect(set.lookup('a')?.name).to.equal('a');
    expect(set.lookup('zzz')).to.equal(undefined);
    expect(set.definitions().map((d) => d.name)).to.deep.equal(['b', 'a']);
    expect([...set].map((t) => t.name)).to.deep.equal(['b', 'a']);
  });

  it('validate names every empty and duplicate name', () => {
    expect(() => new ToolSet([plain('a'), plain('b')]).validate()).not.to.throw();
    expect(() => new ToolSet([plain('a'), plain(''), plain('a')]).validate()).to.throw(
      'tool set: tool 1 has an empty name; duplicate tool name "a"',
    );
  });

  it('validate refuses names the Responses API refuses: only letters, digits, _ and -, at most 64', () => {
    const fine = ['read_file', 'get-sum', 'every__echo', 'A1', 'x'.repeat(64)];
    expect(() => new ToolSet(fine.map((name) => plain(name))).validate()).not.to.throw();
    const bad = ['bad name!', 'dotted.name', 'x'.repeat(65), 'café', 'a/b'];
    for (const name of bad)
      expect(() => new ToolSet([plain('ok'), plain(name)]).validate(), name).to.throw(
        `tool set: tool name ${JSON.stringify(name)} is not a function name (1 to 64 letters, digits, "_" and "-")`,
      );
    expect(() => new ToolSet([plain('bad name!'), plain('')]).validate()).to.throw(
      'tool set: tool name "bad name!" is not a function name (1 to 64 letters, digits, "_" and "-"); tool 1 has an empty name',
    );
  });

  it('close closes every tool that can be closed, even after a failure, and joins the failures', async () => {
    const closed: string[] = [];
    const closing = (name: string, fail: boolean) =>
      rawTool({
        name,
        description: '',
        execute: () => ({ output: '' }),
        close: async () => {
          closed.push(name);
          if (fail) throw new Error(`${name} failed`);
        },
      });
    const one = new ToolSet([closing('a', true), plain('x'), closing('b', false)]);
    let error: unknown;
    await one.close().catch((e: unknown) => (error = e));
    expect(closed).to.deep.equal(['a', 'b']);
    expect((error as Error).message).to.equal('a failed');

    const two = new ToolSet([closing('c', true), closing('d', true)]);
    error = undefined;
    await two.close().catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(AggregateError);
    expect((error as AggregateError).errors.map((e: Error) => e.message)).to.deep.equal([
      'c failed',
      'd failed',
    ]);
  });
});
