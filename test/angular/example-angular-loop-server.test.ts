/**
 * The Angular example's loop server (examples/angular-app/loop-server.ts): a run posted by
 * `@ag-ui/client`'s HttpAgent, as the page posts it, streams the replayed conversation; the
 * client answers the approval and the question over the server's own requests, as the page's
 * buttons and form do, and ends with the thread the model saw.
 */
import { HttpAgent } from '@ag-ui/client';
import { expect } from 'chai';
import { serveLoop, type LoopServer } from '../../examples/angular-app/loop-server.js';

async function post(url: URL, path: string, body: unknown): Promise<number> {
  const response = await fetch(new URL(path, url), { method: 'POST', body: JSON.stringify(body) });
  return response.status;
}

describe('the Angular example’s loop server, read by HttpAgent', function () {
  this.timeout(20_000);
  let server: LoopServer;
  before(async () => {
    server = await serveLoop(0, 'http://127.0.0.1:4200');
  });
  after(() => server?.close());

  it('streams a run the client verifies: text, progress, an approval and a question it answers', async () => {
    const agent = new HttpAgent({ url: server.url.href, threadId: 't1' });
    const custom: [string, unknown][] = [];
    const progress: unknown[] = [];
    const answers: Promise<number>[] = [];
    await agent.runAgent(
      { runId: 'r1' },
      {
        onCustomEvent: ({ event }) => {
          custom.push([event.name, event.value]);
          const value = event.value as { toolCallId: string; id?: string; answer?: unknown };
          if (value.answer !== undefined) return;
          if (event.name === 'agenttool.approval' && value.toolCallId === 'c2')
            answers.push(post(server.url, '/approve', { callId: 'c2', approved: true }));
          if (event.name === 'agenttool.question')
            answers.push(
              post(server.url, '/answer', {
                id: value.id,
                answer: { action: 'accept', content: { env: 'staging' } },
              }),
            );
        },
        onActivitySnapshotEvent: ({ event }) => void progress.push(event.content),
      },
    );
    expect(await Promise.all(answers)).to.deep.equal([204, 204]);
    const thread = JSON.parse(JSON.stringify(agent.messages)) as {
      role: string;
      content?: unknown;
    }[];
    // Results come as the calls end: the weather's progress takes longer than the approval.
    expect(thread.filter((m) => m.role === 'tool').map((m) => m.content)).to.have.members([
      'light snow in Oslo, -3 °C',
      'deployed api',
      'env: staging',
    ]);
    expect(thread.filter((m) => m.role === 'assistant').map((m) => m.content ?? '')).to.deep.equal([
      'Looking at the weather, then deploying.',
      '',
      'Oslo has light snow; api is deployed.',
    ]);
    expect(progress.map((p) => (p as { progress: number }).progress)).to.deep.equal([1, 2, 3]);
    const questions = custom.filter(([name]) => name === 'agenttool.question');
    expect(questions.map(([, v]) => (v as { id: string }).id)).to.deep.equal(['c3-q1', 'c3-q1']);
    // An answer for nothing waiting is refused.
    expect(await post(server.url, '/approve', { callId: 'c2', approved: true })).to.equal(404);
  });

  it('answers the page’s origin across origins', async () => {
    const response = await fetch(server.url, { method: 'OPTIONS' });
    expect(response.status).to.equal(204);
    expect(response.headers.get('access-control-allow-origin')).to.equal('http://127.0.0.1:4200');
  });
});
