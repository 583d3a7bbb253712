import { expect } from 'chai';
import { Observable, interval, map, of, take } from 'rxjs';
import { z } from 'zod';
import {
  imagePart,
  isSequential,
  isStrict,
  parts,
  rawTool,
  resourceOf,
  textPart,
  textResult,
  tool,
  CallContext,
  confinedBy,
  ToolPanicError,
  type Recordable,
  type ToolContext,
} from '../../index.js';
import { checksOwnArguments } from '../../schema.js';
import { outputOf, runTool } from '../support/run.js';

const noArgs = <Out>(execute: (args: object, context: ToolContext) => Out) =>
  tool({ name: 't', description: 'test tool', execute });

describe('tool(): the four execute forms', () => {
  it('a returned value is the final result, with no progress', async () => {
    const { events } = await runTool(noArgs(() => 'done'));
    expect(events).to.deep.equal([{ final: true, result: { output: 'done' } }]);
  });

  it('a Promise resolves to the final result', async () => {
    const { events } = await runTool(noArgs(async () => 'later'));
    expect(events).to.deep.equal([{ final: true, result: { output: 'later' } }]);
  });

  it('context.progress reports progress before the final result, in order', async () => {
    const t = noArgs(async (_args, context) => {
      context.progress('starting');
      context.progress({ progress: 1, total: 2, message: 'half' });
      await Promise.resolve();
      context.progress({ progress: 2, total: 2 });
      return 'ok';
    });
    const { events } = await runTool(t);
    expect(events).to.deep.equal([
      { final: false, result: { output: 'starting' } },
      {
        final: false,
        result: { output: 'half', details: { progress: 1, total: 2, message: 'half' } },
      },
      { final: false, result: { output: '', details: { progress: 2, total: 2 } } },
      { final: true, result: { output: 'ok' } },
    ]);
  });

  it('an async generator: each yield is progress, the return value is the final result', async () => {
    const t = tool({
      name: 'gen',
      description: 'counts',
      async *execute() {
        yield 'one';
        yield { progress: 2 };
        return { count: 2 };
      },
    });
    const { events } = await runTool(t);
    expect(events).to.deep.equal([
      { final: false, result: { output: 'one' } },
      { final: false, result: { output: '', details: { progress: 2 } } },
      { final: true, result: { output: '{"count":2}' } },
    ]);
  });

  it('an Observable: every value is progress and the last one is the final result too', async () => {
    const t = noArgs(() =>
      interval(1).pipe(
        take(3),
        map((i) => `step ${i}`),
      ),
    );
    const { events } = await runTool(t);
    expect(events).to.deep.equal([
      { final: false, result: { output: 'step 0' } },
      { final: false, result: { output: 'step 1' } },
      { final: false, result: { output: 'step 2' } },
      { final: true, result: { output: 'step 2' } },
    ]);
  });

  it('an Observable that completes with no value breaks the contract: ToolPanicError', async () => {
    const { events, error } = await runTool(
      noArgs(() => new Observable<string>((s) => s.complete())),
    );
    expect(events).to.deep.equal([]);
    expect(error).to.be.instanceOf(ToolPanicError);
    expect((error as ToolPanicError).message).to.equal(
      'tool "t" panicked: observable completed without a value',
    );
  });
});

describe('tool(): failures', () => {
  it('a thrown Error is the tool failure, as is', async () => {
    const boom = new Error('disk full');
    const { events, error } = await runTool(
      noArgs(() => {
        throw boom;
      }),
    );
    expect(events).to.deep.equal([]);
    expect(error).to.equal(boom);
  });

  it('a rejection is the tool failure', async () => {
    const { error } = await runTool(
      noArgs(async () => {
        throw new Error('nope');
      }),
    );
    expect((error as Error).message).to.equal('nope');
  });

  it('a thrown non-Error value becomes a ToolPanicError that keeps the value', async () => {
    const { error } = await runTool(
      noArgs(() => {
        throw { weird: true };
      }),
    );
    expect(error).to.be.instanceOf(ToolPanicError);
    const panic = error as ToolPanicError;
    expect(panic.code).to.equal('tool_panic');
    expect(panic.message).to.equal('tool "t" panicked: {"weird":true}');
    expect(panic.value).to.deep.equal({ weird: true });
  });

  it('a value JSON cannot express fails the call instead of sending garbage', async () => {
    const { error } = await runTool(noArgs(() => ({ big: 10n })));
    expect(error).to.be.instanceOf(TypeError);
  });

  it('an Error returned, or resolved, is the tool failure with that error, never "{}"', async () => {
    const refused = new Error('quota exceeded');
    for (const t of [
      noArgs(() => refused),
      noArgs(async () => refused),
      noArgs(() => of('working', refused)),
      rawTool({ name: 't', description: '', execute: async () => refused as never }),
    ]) {
      const { events, error } = await runTool(t);
      expect(error).to.equal(refused);
      expect(events.filter((event) => event.final)).to.deep.equal([]);
    }
  });

  it('an output JSON cannot express fails with one line naming the tool and why', async () => {
    const circular: { self?: unknown } = {};
    circular.self = circular;
    const cases: [unknown, string][] = [
      [circular, 'tool "t" returned a value JSON cannot express: it is circular'],
      [{ big: 10n }, 'tool "t" returned a value JSON cannot express: it holds a BigInt'],
      [() => 1, 'tool "t" returned a value JSON cannot express: it is a function'],
    ];
    for (const [value, message] of cases) {
      const { error } = await runTool(noArgs(() => value));
      expect((error as Error).message).to.equal(message);
    }
    const raw = rawTool({ name: 'r', description: '', execute: async () => circular as never });
    expect(((await runTool(raw)).error as Error).message).to.equal(
      'tool "r" returned a value JSON cannot express: it is circular',
    );
  });
});

describe('tool(): what the model sees', () => {
  it('a string is text', async () => {
    expect(await outputOf(noArgs(() => 'hello'))).to.equal('hello');
  });

  it('parts made with parts() are content parts', async () => {
    const out = await outputOf(
      noArgs(() => parts(textPart('a cat'), imagePart({ data: 'AAAA', mimeType: 'image/png' }))),
    );
    expect(out).to.deep.equal([
      { type: 'input_text', text: 'a cat' },
      { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
    ]);
  });

  it('one part made with a part helper is a one-part list', async () => {
    expect(await outputOf(noArgs(() => imagePart('https://example.test/cat.png')))).to.deep.equal([
      { type: 'input_image', image_url: 'https://example.test/cat.png' },
    ]);
  });

  it('a result made with textResult is used as is, details and terminate included', async () => {
    const { events } = await runTool(
      noArgs(() => textResult('bye', { details: { n: 1 }, terminate: true })),
    );
    expect(events).to.deep.equal([
      { final: true, result: { output: 'bye', details: { n: 1 }, terminate: true } },
    ]);
  });

  it('a plain array or object is JSON data, never mistaken for parts or a result', async () => {
    expect(await outputOf(noArgs(() => [{ type: 'input_text', text: 'x' }]))).to.equal(
      '[{"type":"input_text","text":"x"}]',
    );
    expect(await outputOf(noArgs(() => ({ output: 'x', terminate: true })))).to.equal(
      '{"output":"x","terminate":true}',
    );
  });

  it('undefined is empty text; numbers, booleans and null are JSON', async () => {
    expect(await outputOf(noArgs(() => undefined))).to.equal('');
    expect(await outputOf(noArgs(() => 42))).to.equal('42');
    expect(await outputOf(noArgs(() => false))).to.equal('false');
    expect(await outputOf(noArgs(() => null))).to.equal('null');
  });
});

describe('tool(): cancellation', () => {
  it('unsubscribing aborts the signal the function sees', async () => {
    let seen: AbortSignal | undefined;
    const t = noArgs((_a, context) => {
      seen = context.signal;
      return new Promise(() => undefined);
    });
    const call = { id: 'c', args: '' };
    const sub = t.execute(call, new CallContext(call)).subscribe();
    await Promise.resolve();
    expect(seen?.aborted).to.equal(false);
    sub.unsubscribe();
    expect(seen?.aborted).to.equal(true);
  });

  it('the signal does not abort when the call completes', async () => {
    let seen: AbortSignal | undefined;
    await runTool(
      noArgs((_a, context) => {
        seen = context.signal;
        return 'ok';
      }),
    );
    expect(seen?.aborted).to.equal(false);
  });

  it("unsubscribing runs an async generator's finally block, and nothing it yields after", async () => {
    let waiting: () => void = () => undefined;
    const reachedWait = new Promise<void>((resolve) => (waiting = resolve));
    let release: () => void = () => undefined;
    let cleaned: () => void = () => undefined;
    const cleanedUp = new Promise<void>((resolve) => (cleaned = resolve));
    const t = tool({
      name: 'gen',
      description: 'waits',
      async *execute() {
        try {
          yield 'started';
          const released = new Promise<void>((resolve) => (release = resolve));
          waiting();
          await released;
          yield 'after the unsubscribe';
          return 'never seen';
        } finally {
          cleaned();
        }
      },
    });
    const call = { id: 'c', args: '' };
    const seen: string[] = [];
    const sub = t
      .execute(call, new CallContext(call))
      .subscribe((e) => seen.push(String(e.result.output)));
    await reachedWait;
    sub.unsubscribe();
    release();
    await cleanedUp;
    expect(seen).to.deep.equal(['started']);
  });

  it('unsubscribing an Observable-returning function unsubscribes its observable', async () => {
    let tornDown = false;
    const t = noArgs(
      () =>
        new Observable<string>(() => () => {
          tornDown = true;
        }),
    );
    const call = { id: 'c', args: '' };
    t.execute(call, new CallContext(call)).subscribe().unsubscribe();
    expect(tornDown).to.equal(true);
  });
});

describe('tool(): records and sessions', () => {
  class Pgid implements Recordable {
    constructor(readonly pgid: number) {}
    recordNS() {
      return 'shell:process-group';
    }
  }

  it('context.record reaches the recorder of the context the call runs under, mid-call', async () => {
    const written: unknown[] = [];
    const t = noArgs(async (_a, context) => {
      await context.record(new Pgid(42));
      written.push('after record');
      return 'ok';
    });
    await runTool(t, '', {
      recorder: async (record, call) => {
        written.push({ ...record, call: call.id });
      },
    });
    expect(written).to.deep.equal([
      { ns: 'shell:process-group', data: '{"pgid":42}', call: 'c1' },
      'after record',
    ]);
  });

  it('context.record is a no-op without a recorder', async () => {
    expect(
      await outputOf(
        noArgs(async (_a, context) => {
          await context.record(new Pgid(1));
          return 'ok';
        }),
      ),
    ).to.equal('ok');
  });

  it('a recorder failure reaches the tool', async () => {
    const t = noArgs(async (_a, context) => {
      try {
        await context.record(new Pgid(1));
      } catch (err) {
        return `record failed: ${(err as Error).message}`;
      }
      return 'recorded';
    });
    const { events } = await runTool(t, '', {
      recorder: () => {
        throw new Error('disk full');
      },
    });
    expect(events.at(-1)?.result.output).to.equal('record failed: disk full');
  });

  it('the session of the outer context reaches the function', async () => {
    const t = noArgs((_a, context) => context.session?.id ?? 'none');
    const { events } = await runTool(t, '', { session: { id: 's-7' } });
    expect(events.at(-1)?.result.output).to.equal('s-7');
  });
});

describe('tool() and rawTool(): properties', () => {
  it('carries exactly the properties the author stated', () => {
    const t = tool({
      name: 'bash',
      description: 'run',
      resource: 'shell:session',
      annotations: { destructiveHint: true },
      execute: () => '',
    });
    expect(resourceOf(t)).to.equal('shell:session');
    expect(isSequential(t)).to.equal(false);
    expect(isStrict(t)).to.equal(false);
    expect(t.annotations).to.deep.equal({ destructiveHint: true });
    expect('sequential' in t).to.equal(false);
  });

  it('a sequential tool reports no resource, whatever it says', () => {
    const t = tool({
      name: 's',
      description: '',
      sequential: true,
      resource: 'x',
      execute: () => '',
    });
    expect(resourceOf(t)).to.equal('');
    expect(isSequential(t)).to.equal(true);
  });

  it('refuses an empty name and a missing execute', () => {
    expect(() => tool({ name: '', description: '', execute: () => '' })).to.throw(
      TypeError,
      /name/,
    );
    expect(() => rawTool({ name: 'x', description: '', execute: undefined as never })).to.throw(
      TypeError,
      /execute/,
    );
  });
});

describe('rawTool()', () => {
  it('serves its parameters verbatim and runs the raw call', async () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } } };
    const t = rawTool({
      name: 'raw',
      description: 'd',
      parameters: schema,
      execute: (call) => textResult(`got ${call.args}`),
    });
    expect(t.parameters).to.equal(schema);
    expect(await outputOf(t, '{"q":1}')).to.equal('got {"q":1}');
  });

  it('passes an Observable of events through as it is', async () => {
    const t = rawTool({
      name: 'raw',
      description: 'd',
      execute: () =>
        of(
          { final: false, result: { output: 'p' } },
          { final: true, result: { output: 'f', details: 1 } },
        ),
    });
    const { events } = await runTool(t);
    expect(events).to.deep.equal([
      { final: false, result: { output: 'p' } },
      { final: true, result: { output: 'f', details: 1 } },
    ]);
  });

  it('progress through the context arrives before the final result of a Promise', async () => {
    const t = rawTool({
      name: 'raw',
      description: 'd',
      execute: async (_call, context) => {
        context.progress({ progress: 1, total: 1 });
        return { output: 'done' };
      },
    });
    const { events } = await runTool(t);
    expect(events.map((e) => e.final)).to.deep.equal([false, true]);
  });
});

describe('tool(): typed arguments', () => {
  it('passes the decoded arguments, defaults applied', async () => {
    const t = tool({
      name: 'greet',
      description: 'greets',
      parameters: z.object({ name: z.string(), punct: z.string().default('!') }),
      execute: ({ name, punct }) => `hello ${name}${punct}`,
    });
    expect(await outputOf(t, { name: 'ada' })).to.equal('hello ada!');
  });
});

describe('tool(): arguments are checked before the function runs', () => {
  let ran = 0;
  const tagger = tool({
    name: 'tag',
    description: 'tags a note',
    strict: true,
    parameters: z.object({
      tags: z.array(z.string()),
      level: z.enum(['low', 'high']),
      when: z.date().optional(),
      note: z.string().optional(),
    }),
    execute: (args) => {
      ran++;
      return { ...args, when: args.when?.toISOString(), noteAbsent: args.note === undefined };
    },
  });
  const valid = { tags: ['a'], level: 'low', when: null, note: null };

  beforeEach(() => (ran = 0));

  const cases: [string, string, string][] = [
    [
      'a wrong element type',
      JSON.stringify({ ...valid, tags: ['a', 2] }),
      'invalid arguments: tags[1]: expected string, got 2',
    ],
    [
      'a value outside the enum',
      JSON.stringify({ ...valid, level: 'mid' }),
      'invalid arguments: level: expected one of ["low", "high"], got "mid"',
    ],
    ['malformed JSON', '{"tags": [', 'invalid arguments: not valid JSON'],
    ['a non-object', '[1,2]', 'invalid arguments: expected object, got array'],
    [
      'an unknown property under strict',
      JSON.stringify({ ...valid, bogus: 1 }),
      'invalid arguments: unexpected property "bogus"',
    ],
    [
      'a missing property',
      JSON.stringify({ tags: [], level: 'low', when: null }),
      'invalid arguments: missing required property "note"',
    ],
    [
      'a __proto__ key',
      '{"__proto__":{"polluted":true},"tags":[],"level":"low","when":null,"note":null}',
      'invalid arguments',
    ],
    [
      '100k-deep nesting',
      `{"tags":${'['.repeat(100_000)}${']'.repeat(100_000)},"level":"low","when":null,"note":null}`,
      'invalid arguments',
    ],
    [
      'a multi-megabyte string',
      JSON.stringify({ ...valid, tags: ['x'.repeat(3 * 1024 * 1024)] }),
      'invalid arguments',
    ],
  ];
  for (const [what, args, message] of cases) {
    it(`${what}: one line "${message}…", and the function never runs`, async () => {
      const { events, error } = await runTool(tagger, args);
      expect(events).to.deep.equal([]);
      expect(error).to.be.instanceOf(Error);
      const text = (error as Error).message;
      expect(text.startsWith(message), text).to.equal(true);
      expect(text).to.not.include('\n');
      expect(ran).to.equal(0);
      expect(({} as { polluted?: unknown }).polluted).to.equal(undefined);
    });
  }

  it('strict mode: a null for an optional field reaches the function as undefined; a date-time string as a Date', async () => {
    const out = await outputOf(tagger, { ...valid, when: '2024-01-02T03:04:05Z' });
    expect(JSON.parse(String(out))).to.deep.equal({
      tags: ['a'],
      level: 'low',
      when: '2024-01-02T03:04:05.000Z',
      noteAbsent: true,
    });
    expect(ran).to.equal(1);
  });

  it('zod refinements run after the schema check, with their own message', async () => {
    const lower = tool({
      name: 'lower',
      description: '',
      parameters: z.object({
        name: z.string().refine((s) => s === s.toLowerCase(), 'must be lowercase'),
      }),
      execute: ({ name }) => name,
    });
    const { error } = await runTool(lower, { name: 'Ada' });
    expect((error as Error).message).to.equal('invalid arguments: name: must be lowercase');
    expect(await outputOf(lower, { name: 'ada' })).to.equal('ada');
  });

  it('async refinements are awaited before the function runs', async () => {
    const free = tool({
      name: 'free',
      description: '',
      parameters: z.object({ user: z.string().refine(async (u) => u !== 'taken', 'is taken') }),
      execute: ({ user }) => `welcome ${user}`,
    });
    expect((await runTool(free, { user: 'taken' })).error).to.have.property(
      'message',
      'invalid arguments: user: is taken',
    );
    expect(await outputOf(free, { user: 'ada' })).to.equal('welcome ada');
  });

  it('"" is an empty arguments object', async () => {
    const t = tool({
      name: 'opt',
      description: '',
      parameters: z.object({ n: z.number().default(3) }),
      execute: ({ n }) => n,
    });
    expect(await outputOf(t, '')).to.equal('3');
  });

  it('a plain JSON Schema is served as given and still validated', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const t = tool({ name: 'json', description: '', parameters: schema, execute: (args) => args });
    expect(t.parameters).to.equal(schema);
    expect((await runTool(t, { n: 1.5 })).error).to.have.property(
      'message',
      'invalid arguments: n: expected integer, got 1.5',
    );
    expect(await outputOf(t, { n: 2 })).to.equal('{"n":2}');
  });

  it('a JSON Schema that does not compile is refused at registration, naming the tool', () => {
    expect(() =>
      tool({
        name: 'broken',
        description: '',
        parameters: { type: 'object', properties: { a: { type: 'no-such-type' } } },
        execute: () => '',
      }),
    ).to.throw(/tool "broken"/);
  });

  it('a zod schema that cannot be expressed is refused at registration, naming the tool', () => {
    expect(() =>
      tool({
        name: 'rec',
        description: '',
        strict: true,
        parameters: z.object({ m: z.record(z.string(), z.number()) }),
        execute: () => '',
      }),
    ).to.throw(/tool "rec"/);
  });

  it('confined sees the decoded arguments; arguments that do not validate are not confined', () => {
    const t = tool({
      name: 'sandboxed',
      description: '',
      parameters: z.object({ escape: z.boolean().default(false) }),
      confined: ({ escape }) =>
        escape ? { confined: false, by: '' } : { confined: true, by: 'landlock' },
      execute: () => '',
    });
    const context = new CallContext({ id: 'c', args: '' });
    expect(confinedBy(t, '{}', context)).to.deep.equal({ confined: true, by: 'landlock' });
    expect(confinedBy(t, '{"escape":true}', context)).to.deep.equal({ confined: false, by: '' });
    expect(confinedBy(t, '{"escape":"yes"}', context)).to.deep.equal({ confined: false, by: '' });
  });
});

describe('tool(): zod v3 schemas', () => {
  it('serve the same bytes as their v4 equivalent and decode the same way', async () => {
    const { z: z3 } = await import('zod/v3');
    const v3 = tool({
      name: 'v',
      description: '',
      strict: true,
      parameters: z3.object({ a: z3.string(), b: z3.number().int().optional() }),
      execute: (args) => args,
    });
    const v4 = tool({
      name: 'v',
      description: '',
      strict: true,
      parameters: z.object({ a: z.string(), b: z.int().optional() }),
      execute: (args) => args,
    });
    expect(JSON.stringify(v3.parameters)).to.equal(JSON.stringify(v4.parameters));
    expect(await outputOf(v3, { a: 'x', b: null })).to.equal('{"a":"x"}');
    expect((await runTool(v3, { a: 1, b: null })).error).to.have.property(
      'message',
      'invalid arguments: a: expected string, got 1',
    );
  });
});

describe('checksOwnArguments', () => {
  it('is true for a tool() and false for a rawTool or a hand-made Tool', () => {
    expect(checksOwnArguments(tool({ name: 'a', description: '', execute: () => '' }))).to.equal(
      true,
    );
    expect(
      checksOwnArguments(rawTool({ name: 'b', description: '', execute: () => ({ output: '' }) })),
    ).to.equal(false);
    expect(
      checksOwnArguments({
        name: 'c',
        description: '',
        execute: () => of({ final: true, result: { output: '' } }),
      }),
    ).to.equal(false);
  });
});
