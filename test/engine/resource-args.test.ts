import { expect } from 'chai';
import { z } from 'zod';
import {
  resourceOf,
  unwrap,
  wrap,
  ValidationError,
  type JsonArguments,
  type Tool,
} from '../../lib/index.js';
import { rawTool } from '../../lib/raw-tool.js';
import { tool } from '../../lib/tool.js';
import { batchResults } from '../../operators/batch-results.js';
import { initialCallStates } from '../../operators/batch-state.js';
import { chains } from '../../operators/chains.js';
import type { Job } from '../../operators/job.js';

const write = tool({
  name: 'write',
  description: 'writes a file',
  parameters: z.object({ path: z.string().trim(), text: z.string().default('') }),
  resource: (args) => `file:${args.path}`,
  execute: (args) => `wrote ${args.path}`,
});

function job(t: Tool, id: string, args: object | string): Job {
  return { tool: t, call: { id, args: typeof args === 'string' ? args : JSON.stringify(args) } };
}

describe('resources named from the arguments', () => {
  describe('resourceOf', () => {
    it("names a zod tool's resource from its decoded arguments", () => {
      expect(resourceOf(write, '{"path":"  notes.txt "}')).to.equal('file:notes.txt');
    });

    it('throws the ValidationError the tool itself would give for arguments it refuses', () => {
      expect(() => resourceOf(write, '{"path":3}'))
        .to.throw(ValidationError)
        .with.property('message', 'invalid arguments: path: expected string, got 3');
      expect(() => resourceOf(write, '{}')).to.throw('missing required property "path"');
      expect(() => resourceOf(write, 'path=a')).to.throw(/^invalid arguments: not valid JSON: /);
    });

    it('gives a raw tool its arguments parsed from JSON, "" as {}', () => {
      const seen: JsonArguments[] = [];
      const remote = rawTool({
        name: 'remote',
        description: '',
        resource: (args) => {
          seen.push(args);
          return typeof args.path === 'string' ? `file:${args.path}` : '';
        },
        execute: () => ({ output: '' }),
      });
      expect(resourceOf(remote, '{"path":"a","n":[1]}')).to.equal('file:a');
      expect(resourceOf(remote, '')).to.equal('');
      expect(resourceOf(remote)).to.equal('');
      expect(seen).to.deep.equal([{ path: 'a', n: [1] }, {}, {}]);
    });

    it('refuses arguments that are not an object, and a __proto__ key, before the function runs', () => {
      let called = false;
      const remote = rawTool({
        name: 'remote',
        description: '',
        resource: () => ((called = true), 'x'),
        execute: () => ({ output: '' }),
      });
      expect(() => resourceOf(remote, '[1]')).to.throw(
        'invalid arguments: expected object, got array',
      );
      expect(() => resourceOf(remote, '{"__proto__":{"path":"x"}}')).to.throw(ValidationError);
      expect(called).to.equal(false);
    });

    it('refuses a resource function that names something other than a string', () => {
      const bad = { ...write, resource: (() => 7) as unknown as (a: JsonArguments) => string };
      expect(() => resourceOf(bad, '{}')).to.throw(
        TypeError,
        'tool "write": resource returned 7, not a string or { key, capacity }',
      );
    });

    it('reads "" for a sequential tool without asking its function', () => {
      const shell = { ...write, sequential: true, resource: () => expect.fail('asked') };
      expect(resourceOf(shell, '{"path":"a"}')).to.equal('');
    });

    it('fails every call of a schema with async refinements, whose decoding is not synchronous', () => {
      const slow = tool({
        name: 'slow',
        description: '',
        parameters: z.object({ path: z.string().refine(async (p) => p !== '') }),
        resource: (args) => args.path,
        execute: () => '',
      });
      expect(() => resourceOf(slow, '{"path":"a"}')).to.throw(
        TypeError,
        'tool "slow": resource needs arguments decoded synchronously, and the schema has async refinements',
      );
    });
  });

  describe('chains', () => {
    it('puts each call on the chain of the file its arguments name; one that fails alone', () => {
      const jobs = [
        job(write, 'a', { path: 'a.txt' }),
        job(write, 'b', { path: 'b.txt' }),
        job(write, 'bad', { path: 1 }),
        job(write, 'a2', { path: ' a.txt' }),
        job(write, 'broken', '{'),
        job(write, 'b2', { path: 'b.txt' }),
      ];
      expect(chains(jobs)).to.deep.equal([[0, 3], [1, 5], [2], [4]]);
      expect(chains(jobs, { sequential: true })).to.deep.equal([[0, 1, 2, 3, 4, 5]]);
    });

    it('tells the batch view which call waits for which', () => {
      const jobs = [
        job(write, 'a', { path: 'a' }),
        job(write, 'b', '{'),
        job(write, 'c', { path: 'a' }),
      ];
      const states = initialCallStates(jobs);
      expect(states.map((s) => [s.resource, s.after])).to.deep.equal([
        ['file:a', -1],
        ['', -1],
        ['file:a', 0],
      ]);
    });
  });

  describe('wrap', () => {
    it('forwards a resource function, which still decodes with the inner schema', () => {
      const logged = wrap(write, { description: 'writes a file, logged' });
      expect(unwrap(logged)).to.equal(write);
      expect(resourceOf(logged, '{"path":" x "}')).to.equal('file:x');
      expect(() => resourceOf(logged, '{"path":false}')).to.throw(ValidationError);
      const pinned = wrap(write, { resource: 'fs' });
      expect(resourceOf(pinned, '{"path":"x"}')).to.equal('fs');
    });
  });

  it('runs a batch: an undecodable call fails with the message the model retries on', async () => {
    const settled = await batchResults([
      job(write, 'a', { path: 'a.txt' }),
      job(write, 'b', { path: null }),
      job(write, 'c', { path: 'a.txt' }),
    ]);
    expect(settled[0]).to.deep.equal({ result: { output: 'wrote a.txt' } });
    expect(settled[1]).to.have.nested.property(
      'error.message',
      'invalid arguments: path: expected string, got null',
    );
    expect(settled[2]).to.deep.equal({ result: { output: 'wrote a.txt' } });
  });
});
