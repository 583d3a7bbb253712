import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { connectMcp } from '../../adapters/mcp-client/index.js';
import { stdioTransport } from '../../adapters/mcp-stdio/index.js';
import { executeBatch, type ElicitFormRequest, type ElicitRequest } from '../../index.js';
import { cliArgs, root } from '../support/cli.js';
import { scaled } from '../support/time.js';

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

describe('agenttool serve: questions pass up a proxy chain', function () {
  this.timeout(scaled(30_000));

  it('client -> agenttool serve --mcp "agenttool serve" -> ask_user: the question reaches the outer elicitor', async () => {
    const inner = [process.execPath, ...cliArgs(), 'serve'].map(quote).join(' ');
    const remote = await connectMcp(
      stdioTransport({
        command: process.execPath,
        args: [...cliArgs(), 'serve', '--mcp', inner, '--prefix', 'inner'],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    try {
      const ask = remote.tools.find((t) => t.name === 'inner__ask_user');
      expect(ask, 'the proxied ask_user').to.not.equal(undefined);
      const asked: ElicitRequest[] = [];
      const args = { question: 'Which colour?', choices: ['red', 'blue'] };
      const events = await lastValueFrom(
        executeBatch([{ tool: ask!, call: { id: 'q', args: JSON.stringify(args) } }], {
          elicitor: (request) => {
            asked.push(request);
            return { action: 'accept', content: { answer: 'blue' } };
          },
        }).pipe(toArray()),
      );
      expect(asked.map((q) => q.message)).to.deep.equal(['Which colour?']);
      expect((asked[0] as ElicitFormRequest).schema.properties.answer).to.deep.include({
        enum: ['red', 'blue'],
      });
      expect(events.at(-1)?.result?.output).to.equal('the user answered: blue');
    } finally {
      await remote.close();
    }
  });
});
