import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { lastValueFrom, of, tap, toArray } from 'rxjs';
import ts from 'typescript';
import { z } from 'zod';
import {
  annotationsOf,
  confinedBy,
  isSequential,
  isStrict,
  replayOf,
  resourceOf,
  type Tool,
  type ToolContext,
  type ToolEvent,
} from '../../lib/index.js';
import { CallContext } from '../../lib/context.js';
import { tool } from '../../lib/tool.js';
import { unwrap, wrap } from '../../lib/wrap.js';
import { ToolSet } from '../../lib/tool-set.js';
import { batchResults } from '../../operators/batch-results.js';
import { chains } from '../../operators/chains.js';

/** The optional members of the Tool interface as lib/contract.ts declares them. */
function optionalToolMembers(): { name: string; method: boolean }[] {
  const path = new URL('../../lib/contract.ts', import.meta.url);
  const source = ts.createSourceFile(
    'contract.ts',
    readFileSync(path, 'utf8'),
    ts.ScriptTarget.Latest,
  );
  const members: { name: string; method: boolean }[] = [];
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== 'Tool') return;
    for (const member of node.members) {
      if (member.questionToken === undefined || member.name === undefined) continue;
      members.push({ name: member.name.getText(source), method: ts.isMethodSignature(member) });
    }
  });
  return members;
}

const context = (): ToolContext => new CallContext({ id: 'c1', args: '' });

describe('wrap / unwrap', () => {
  const members = optionalToolMembers();

  it('finds the optional properties of Tool in its source', () => {
    const names = members.map((m) => m.name);
    for (const known of ['parameters', 'strict', 'sequential', 'resource', 'annotations'])
      expect(names).to.include(known);
    for (const known of ['confined', 'close', 'replay']) expect(names).to.include(known);
  });

  it('forwards every optional property of Tool, so one added later cannot be dropped', () => {
    const inner: Record<string, unknown> = {
      name: 'inner',
      description: 'd',
      execute: () => of({ final: true, result: { output: 'x' } }),
    };
    const calledOn: Record<string, unknown> = {};
    for (const { name, method } of members) {
      inner[name] = method
        ? function (this: unknown, ...args: unknown[]) {
            calledOn[name] = this;
            return { from: name, args };
          }
        : { sentinel: name };
    }
    const wrapped = wrap(inner as unknown as Tool) as unknown as Record<string, unknown>;
    for (const { name, method } of members) {
      expect(name in wrapped, `${name} is present`).to.equal(true);
      if (!method) {
        expect(wrapped[name], name).to.equal(inner[name]);
        continue;
      }
      const answer = (wrapped[name] as (...args: unknown[]) => unknown)(1, 2);
      expect(answer, name).to.deep.equal({ from: name, args: [1, 2] });
      expect(calledOn[name], `${name} runs on the inner tool`).to.equal(inner);
    }
  });

  it('leaves out what the inner tool does not have, so every reader gives its default', () => {
    const bare: Tool = { name: 'bare', description: '', execute: () => of() };
    const wrapped = wrap(bare);
    for (const { name } of members) expect(name in wrapped, name).to.equal(false);
    expect(isStrict(wrapped)).to.equal(false);
    expect(isSequential(wrapped)).to.equal(false);
    expect(resourceOf(wrapped)).to.equal('');
    expect(annotationsOf(wrapped)).to.deep.equal({});
    expect(confinedBy(wrapped, '', context())).to.deep.equal({ confined: false, by: '' });
    expect(replayOf(wrapped)).to.equal('unsafe');
  });

  it('answers every reader as the tool from tool() it wraps', () => {
    let closed = 0;
    const bash = tool({
      name: 'bash',
      description: 'Run a command',
      parameters: z.object({ command: z.string() }),
      strict: true,
      resource: 'shell:session',
      annotations: { destructiveHint: true },
      replay: 'idempotent',
      confined: ({ command }) => ({ confined: command !== 'escape', by: 'landlock' }),
      close: () => void closed++,
      execute: ({ command }) => `ran ${command}`,
    });
    const wrapped = wrap(bash);
    expect(wrapped.name).to.equal('bash');
    expect(wrapped.description).to.equal('Run a command');
    expect(wrapped.parameters).to.equal(bash.parameters);
    expect(isStrict(wrapped)).to.equal(true);
    expect(resourceOf(wrapped)).to.equal('shell:session');
    expect(annotationsOf(wrapped)).to.deep.equal({ destructiveHint: true });
    expect(replayOf(wrapped)).to.equal('idempotent');
    expect(confinedBy(wrapped, '{"command":"ls"}', context())).to.deep.equal({
      confined: true,
      by: 'landlock',
    });
    expect(confinedBy(wrapped, '{"command":"escape"}', context()).confined).to.equal(false);
    void wrapped.close?.();
    expect(closed).to.equal(1);
  });

  it('keeps a sequential tool sequential and a resource a chain, through the engine', async () => {
    const events: string[] = [];
    const shell = tool({
      name: 'sh',
      description: '',
      resource: 'shell',
      execute: async () => {
        events.push('start');
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.push('end');
        return 'ok';
      },
    });
    const logged = wrap(shell, {
      execute: (call, ctx) => shell.execute(call, ctx).pipe(tap(() => events.push('logged'))),
    });
    const jobs = [1, 2].map((i) => ({ tool: logged, call: { id: `c${i}`, args: '' } }));
    expect(chains(jobs)).to.deep.equal([[0, 1]]);
    const settled = await batchResults(jobs);
    expect(settled).to.deep.equal([{ result: { output: 'ok' } }, { result: { output: 'ok' } }]);
    expect(events).to.deep.equal(['start', 'end', 'logged', 'start', 'end', 'logged']);
  });

  it('uses the overrides, and drops an optional property set to undefined', async () => {
    const inner: Tool = {
      name: 'inner',
      description: 'd',
      sequential: true,
      resource: 'fs',
      execute: () => of({ final: true, result: { output: 'inner' } }),
    };
    const renamed = wrap(inner, {
      name: 'outer',
      sequential: undefined,
      execute: () => of<ToolEvent>({ final: true, result: { output: 'outer' } }),
    });
    expect(renamed.name).to.equal('outer');
    expect(renamed.description).to.equal('d');
    expect('sequential' in renamed).to.equal(false);
    expect(resourceOf(renamed)).to.equal('fs');
    const events = await lastValueFrom(
      renamed.execute({ id: 'c', args: '' }, context()).pipe(toArray()),
    );
    expect(events).to.deep.equal([{ final: true, result: { output: 'outer' } }]);
    const kept = wrap(inner, { name: undefined, execute: undefined });
    expect(kept.name).to.equal('inner');
    expect(typeof kept.execute).to.equal('function');
  });

  it('forwards a class-based tool, prototype methods and private state included', async () => {
    class Shell implements Tool {
      readonly name = 'shell';
      readonly description = '';
      readonly sequential = true;
      #closed = false;
      execute(): ReturnType<Tool['execute']> {
        return of({ final: true, result: { output: this.#closed ? 'closed' : 'open' } });
      }
      close(): void {
        this.#closed = true;
      }
    }
    const shell = new Shell();
    const wrapped = wrap(shell);
    expect(isSequential(wrapped)).to.equal(true);
    await new ToolSet([wrapped]).close();
    const [event] = await lastValueFrom(
      wrapped.execute({ id: 'c', args: '' }, context()).pipe(toArray()),
    );
    expect(event.result.output).to.equal('closed');
  });

  it('reads non-method properties live from the inner tool', () => {
    const inner: { -readonly [K in keyof Tool]: Tool[K] } = {
      name: 'a',
      description: '',
      execute: () => of(),
      resource: 'one',
    };
    const wrapped = wrap(inner);
    inner.resource = 'two';
    expect(resourceOf(wrapped)).to.equal('two');
  });

  it('unwraps one level, and gives undefined for a tool that is not a wrapper', () => {
    const inner: Tool = { name: 'a', description: '', execute: () => of() };
    const once = wrap(inner);
    const twice = wrap(once, { description: 'twice' });
    expect(unwrap(twice)).to.equal(once);
    expect(unwrap(once)).to.equal(inner);
    expect(unwrap(inner)).to.equal(undefined);
    expect(twice.name).to.equal('a');
  });

  it('refuses something that is not a tool with a one-line TypeError', () => {
    expect(() => wrap(undefined as unknown as Tool)).to.throw(
      TypeError,
      'wrap: expected a tool with an execute function',
    );
    expect(() => wrap({ name: 'x' } as unknown as Tool)).to.throw(TypeError);
  });
});
