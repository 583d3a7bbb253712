/**
 * The web front's server with a person in the loop, over real HTTP: `--approve` asks before every
 * call that is not read-only (approve one, refuse another), and a tool's question reaches the
 * event stream on its call and takes its answer from a POST, checked against the question.
 */
import { join } from 'node:path';
import { expect } from 'chai';
import { ToolSet, type ElicitFormRequest, type FunctionCallItem } from '../../index.js';
import { bundledTools } from '../../cli/tools/index.js';
import { readTurn } from '../../cli/read-turn.js';
import { liveTurn } from '../../cli/ui/live-turn.js';
import type { EventRecord, RunRecord, StreamRecord } from '../../cli/ui/run-records.js';
import { startUiServer, type UiServer } from '../../cli/ui/ui-server.js';
import { root } from '../support/cli.js';
import { EventStreamReader } from '../support/ui.js';
import { scaled } from '../support/time.js';

const call = (id: string, name: string, args: object): FunctionCallItem => ({
  type: 'function_call',
  call_id: id,
  name,
  arguments: JSON.stringify(args),
});

const tools = new ToolSet(bundledTools);
const open: UiServer[] = [];
const readers: EventStreamReader[] = [];

async function serve(items: FunctionCallItem[], approve = false): Promise<UiServer> {
  const server = await startUiServer({
    source: liveTurn(items, tools, { title: 'people', approve }),
  });
  open.push(server);
  return server;
}

function events(server: UiServer): EventStreamReader {
  const reader = new EventStreamReader(new URL(`events?token=${server.token}`, server.url));
  readers.push(reader);
  return reader;
}

async function post(server: UiServer, path: string, body?: unknown) {
  const response = await fetch(new URL(`${path}?token=${server.token}`, server.url), {
    method: 'POST',
    ...(body !== undefined && {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  });
  return { status: response.status, body: (await response.json()) as { error?: string } };
}

const isOutput = (r: StreamRecord): boolean => r.type === 'output';
const approval =
  (index: number, state: string) =>
  (r: StreamRecord): boolean =>
    r.type === 'approval' && r.index === index && r.state === state;
const question = (index: number) => (r: StreamRecord) =>
  r.type === 'event' && r.index === index && r.question !== undefined && r.answer === undefined;

afterEach(async () => {
  for (const reader of readers.splice(0)) reader.close();
  await Promise.all(open.splice(0).map((server) => server.close()));
});

describe('web front: approvals and questions over HTTP', function () {
  this.timeout(scaled(20_000));

  it('with approve, asks for the calls that are not read-only: one approved, one refused', async () => {
    const server = await serve(
      [
        call('list', 'list_dir', { path: 'cli/tools' }),
        call('yes', 'bash', { command: 'echo approved' }),
        call('no', 'bash', { command: 'echo never' }),
      ],
      true,
    );
    const reader = events(server);
    await post(server, 'run');
    await reader.waitFor(approval(1, 'asked'));
    await reader.waitFor(approval(2, 'asked'));
    await reader.waitFor((r) => r.type === 'event' && r.index === 0 && r.final);
    expect(reader.records.some(approval(0, 'asked')), 'a read-only call is not asked').to.equal(
      false,
    );
    expect(await post(server, 'calls/0/approve')).to.deep.equal({
      status: 409,
      body: { error: 'call #0 is not waiting for an approval' },
    });
    expect(await post(server, 'calls/2/refuse')).to.deep.equal({ status: 202, body: { ok: true } });
    expect(await post(server, 'calls/1/approve')).to.deep.equal({
      status: 202,
      body: { ok: true },
    });
    expect(await post(server, 'calls/1/refuse')).to.deep.equal({
      status: 409,
      body: { error: 'call #1 was approved already; the first answer counts' },
    });
    const output = (await reader.waitFor(isOutput)) as Extract<RunRecord, { type: 'output' }>;
    expect(output.items.map((item) => item.output)).to.deep.equal([
      output.items[0]!.output,
      'approved\n[exit code 0]',
      'Error: call "no" was not approved',
    ]);
    expect(reader.records.some(approval(1, 'approved'))).to.equal(true);
    expect(reader.records.some(approval(2, 'refused'))).to.equal(true);
    expect(reader.records.some((r) => r.type === 'start' && r.index === 2)).to.equal(false);
  });

  it('says a call was decided already when the second decision comes after the batch ended', async () => {
    const server = await serve(
      [call('list', 'list_dir', { path: 'cli/tools' }), call('yes', 'bash', { command: 'echo y' })],
      true,
    );
    const reader = events(server);
    await post(server, 'run');
    await reader.waitFor(approval(1, 'asked'));
    expect((await post(server, 'calls/1/approve')).status).to.equal(202);
    // The run ends as it writes its output (cli/ui/run-controller.ts): the first decision
    // finished the batch, and another tab's comes after it.
    await reader.waitFor(isOutput);
    expect(await post(server, 'calls/1/refuse')).to.deep.equal({
      status: 409,
      body: { error: 'call #1 was approved already; the first answer counts' },
    });
    expect(await post(server, 'calls/0/approve')).to.deep.equal({
      status: 409,
      body: { error: 'no run is going' },
    });
  });

  it("takes a person's note beside a decision, and corrected arguments, to the model", async () => {
    const server = await serve(
      [
        call('yes', 'bash', { command: 'echo one' }),
        call('no', 'bash', { command: 'echo two' }),
        call('edit', 'bash', { command: 'echo three' }),
      ],
      true,
    );
    const reader = events(server);
    await post(server, 'run');
    for (const index of [0, 1, 2]) await reader.waitFor(approval(index, 'asked'));
    // Bodies of the wrong shape are refused, and the call still waits.
    for (const [body, error] of [
      [[1], 'the body must be a JSON object: { "note": "..." }'],
      [{ note: 42 }, '"note" must be a string'],
      [{ note: 'x'.repeat(4001) }, '"note" is 4001 characters long; the limit is 4000'],
      [{ args: { command: 'ls' } }, 'a refusal takes no "args"'],
    ] as const)
      expect(await post(server, 'calls/1/refuse', body)).to.deep.equal({
        status: 400,
        body: { error },
      });
    expect(await post(server, 'calls/2/approve', { args: 'ls' })).to.deep.equal({
      status: 400,
      body: { error: '"args" must be a JSON object: the arguments the call runs with' },
    });
    expect((await post(server, 'calls/0/approve', { note: '  fine, once  ' })).status).to.equal(
      202,
    );
    expect((await post(server, 'calls/1/refuse', { note: 'use echo one' })).status).to.equal(202);
    expect(
      (await post(server, 'calls/2/approve', { args: { command: 'echo edited' } })).status,
    ).to.equal(202);
    const output = (await reader.waitFor(isOutput)) as Extract<RunRecord, { type: 'output' }>;
    expect(output.items.map((item) => item.output)).to.deep.equal([
      'one\n[exit code 0]\n\n[Note from the person who reviewed this call: fine, once]',
      'Error: call "no" was not approved\n\n[Note from the person who reviewed this call: use echo one]',
      'edited\n[exit code 0]\n\n[The person who approved this call edited its arguments; it ran with {"command":"echo edited"}]',
    ]);
  });

  it('records what the person did: approved, with the note and the corrected arguments', async () => {
    const server = await serve(
      [
        call('noted', 'bash', { command: 'echo one' }),
        call('edited', 'bash', { command: 'echo two' }),
        call('no', 'bash', { command: 'echo three' }),
      ],
      true,
    );
    const reader = events(server);
    await post(server, 'run');
    for (const index of [0, 1, 2]) await reader.waitFor(approval(index, 'asked'));
    expect((await post(server, 'calls/0/approve', { note: 'fine, once' })).status).to.equal(202);
    const edit = { note: 'say edited', args: { command: 'echo edited' } };
    expect((await post(server, 'calls/1/approve', edit)).status).to.equal(202);
    expect((await post(server, 'calls/2/refuse', { note: 'not now' })).status).to.equal(202);
    await reader.waitFor(isOutput);
    const decided = reader.records.filter((r) => r.type === 'approval' && r.state !== 'asked');
    expect(decided.map((r) => ({ ...r, at: 0 }))).to.have.deep.members([
      { type: 'approval', index: 0, at: 0, state: 'approved', note: 'fine, once' },
      {
        type: 'approval',
        index: 1,
        at: 0,
        state: 'approved',
        note: 'say edited',
        args: '{"command":"echo edited"}',
      },
      { type: 'approval', index: 2, at: 0, state: 'refused', note: 'not now' },
    ]);
    const ran = (index: number) =>
      reader.records.find(
        (r): r is EventRecord => r.type === 'event' && r.index === index && r.final,
      )!;
    expect(ran(1).result?.output).to.equal('edited\n[exit code 0]');
  });

  it('answers corrected arguments that do not fit the tool 400 with why; the call waits for good ones', async () => {
    const server = await serve([call('edit', 'bash', { command: 'echo before' })], true);
    const reader = events(server);
    await post(server, 'run');
    await reader.waitFor(approval(0, 'asked'));
    const bad = await post(server, 'calls/0/approve', { args: { command: 42 } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.equal(
      "its edited arguments do not fit the tool's schema: invalid arguments: command: expected string, got 42",
    );
    expect((await post(server, 'calls/0/approve', { args: {} })).status).to.equal(400);
    // Still waiting: nothing decided, nothing started, and a good correction is taken.
    expect(reader.records.filter((r) => r.type === 'approval').map((r) => r.state)).to.deep.equal([
      'asked',
    ]);
    expect(reader.records.some((r) => r.type === 'start')).to.equal(false);
    expect(
      await post(server, 'calls/0/approve', { args: { command: 'echo after' } }),
    ).to.deep.equal({ status: 202, body: { ok: true } });
    const output = (await reader.waitFor(isOutput)) as Extract<RunRecord, { type: 'output' }>;
    expect(output.items[0]!.output).to.equal(
      'after\n[exit code 0]\n\n[The person who approved this call edited its arguments; it ran with {"command":"echo after"}]',
    );
    expect(reader.records.some(approval(0, 'approved'))).to.equal(true);
    expect(reader.records.some(approval(0, 'refused'))).to.equal(false);
  });

  it('shows a tool’s question on its call and gives the tool the answer POSTed for it', async () => {
    const server = await serve([
      call('ask', 'confirm_step', { step: 'deploy' }),
      call('skip', 'confirm_step', { step: 'migrate' }),
    ]);
    const reader = events(server);
    await post(server, 'run');
    const asked = (await reader.waitFor(question(0))) as EventRecord;
    expect(asked.question?.message).to.equal('Go ahead with: deploy?');
    expect((asked.question as ElicitFormRequest).schema.required).to.deep.equal(['go_ahead']);
    await reader.waitFor(question(1));

    expect(await post(server, 'calls/0/answer', { action: 'accept', content: {} })).to.deep.equal({
      status: 400,
      body: { error: 'go_ahead: required' },
    });
    expect(await post(server, 'calls/0/answer', { action: 'maybe' })).to.deep.equal({
      status: 400,
      body: { error: '"action" must be "accept", "decline" or "cancel"' },
    });
    expect((await post(server, 'calls/0/answer', '{')).status).to.equal(400);
    expect(
      await post(server, 'calls/0/answer', {
        action: 'accept',
        content: { go_ahead: true, note: 'after lunch' },
      }),
    ).to.deep.equal({ status: 202, body: { ok: true } });
    expect(await post(server, 'calls/0/answer', { action: 'decline' })).to.deep.equal({
      status: 409,
      body: { error: "call #0's question was answered already; the first answer counts" },
    });
    expect((await post(server, 'calls/1/answer', { action: 'decline' })).status).to.equal(202);
    const output = (await reader.waitFor(isOutput)) as Extract<RunRecord, { type: 'output' }>;
    expect(output.items.map((item) => item.output)).to.deep.equal([
      'go ahead with "deploy"; note: after lunch',
      'the person declined to answer about "migrate"',
    ]);
    const answered = reader.records.find(
      (r) => r.type === 'event' && r.index === 0 && r.answer !== undefined,
    ) as EventRecord;
    expect(answered.answer).to.deep.equal({
      action: 'accept',
      content: { go_ahead: true, note: 'after lunch' },
    });
  });

  it('shows a page that connects late every open question and pending approval; the first answer counts', async () => {
    const server = await serve(
      [call('ask', 'confirm_step', { step: 'deploy' }), call('sh', 'bash', { command: 'echo hi' })],
      true,
    );
    const first = events(server);
    await post(server, 'run');
    await first.waitFor(question(0));
    await first.waitFor(approval(1, 'asked'));
    // A reload, a second tab: the run again from its batch record, the waits in it.
    const late = events(server);
    await late.waitFor(question(0));
    await late.waitFor(approval(1, 'asked'));
    expect(late.records[0]?.type).to.equal('session');
    expect(late.records[1]?.type).to.equal('batch');

    const yes = { action: 'accept', content: { go_ahead: true }, question: 1 };
    expect(await post(server, 'calls/0/answer', yes)).to.deep.equal({
      status: 202,
      body: { ok: true },
    });
    expect(await post(server, 'calls/0/answer', { action: 'decline', question: 1 })).to.deep.equal({
      status: 409,
      body: { error: "call #0's question was answered already; the first answer counts" },
    });
    expect(
      (await post(server, 'calls/0/answer', { action: 'decline', question: 0 })).status,
    ).to.equal(400);
    expect((await post(server, 'calls/1/approve')).status).to.equal(202);
    expect(await post(server, 'calls/1/refuse')).to.deep.equal({
      status: 409,
      body: { error: 'call #1 was approved already; the first answer counts' },
    });
    const output = (await late.waitFor(isOutput)) as Extract<RunRecord, { type: 'output' }>;
    expect(output.items.map((item) => item.output)).to.deep.equal([
      'go ahead with "deploy"',
      'hi\n[exit code 0]',
    ]);
  });

  it('takes approvals and answers from its own page only: the token, and no foreign origin', async () => {
    const server = await serve([call('ask', 'confirm_step', { step: 'deploy' })]);
    const reader = events(server);
    await post(server, 'run');
    await reader.waitFor(question(0));
    const answer = JSON.stringify({ action: 'accept', content: { go_ahead: true } });
    const tokenless = await fetch(new URL('calls/0/answer', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: answer,
    });
    expect(tokenless.status).to.equal(403);
    const foreign = await fetch(new URL(`calls/0/answer?token=${server.token}`, server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://attacker.example' },
      body: answer,
    });
    expect(foreign.status).to.equal(403);
    expect((await post(server, 'calls/0/refuse')).status).to.equal(409);
    // The question is still open for the page itself.
    expect((await post(server, 'calls/0/answer', JSON.parse(answer))).status).to.equal(202);
    await reader.waitFor(isOutput);
  });

  it('runs the example turn with approve: the shell call waits for approval, confirm_step asks', async () => {
    const items = await readTurn(join(root, 'examples', 'people-turn.json'));
    const server = await startUiServer({
      source: liveTurn(items, tools, { title: 'people-turn.json', approve: true }),
    });
    open.push(server);
    const reader = events(server);
    await post(server, 'run');
    await reader.waitFor(question(1));
    await reader.waitFor(approval(2, 'asked'));
    await reader.waitFor((r) => r.type === 'event' && r.index === 0 && r.final);
    expect(reader.records.some(approval(1, 'asked')), 'confirm_step is read-only').to.equal(false);
    expect(reader.records.some(approval(3, 'asked')), 'slow_count is read-only').to.equal(false);
    expect((await post(server, 'cancel')).status).to.equal(202);
    await reader.waitFor(isOutput);
  });

  it('cancels a call whose question is open: the question goes, the call ends cancelled', async () => {
    const server = await serve([call('ask', 'confirm_step', { step: 'deploy' })]);
    const reader = events(server);
    await post(server, 'run');
    await reader.waitFor(question(0));
    expect((await post(server, 'calls/0/cancel')).status).to.equal(202);
    const final = (await reader.waitFor(
      (r) => r.type === 'event' && r.index === 0 && r.final,
    )) as EventRecord;
    expect(final.error?.code).to.equal('cancelled');
    expect((await post(server, 'calls/0/answer', { action: 'decline' })).status).to.equal(409);
  });
});
