import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, runCli } from '../support/cli.js';
import { scaled } from '../support/time.js';

const dir = mkdtempSync(join(tmpdir(), 'agenttool-answers-'));
const ask = (call_id: string, args: object) => ({
  type: 'function_call',
  call_id,
  name: 'ask_user',
  arguments: JSON.stringify(args),
});
const turn = join(dir, 'ask.json');
writeFileSync(
  turn,
  JSON.stringify([
    ask('colour', { question: 'Which colour?', choices: ['red', 'blue'] }),
    ask('name', { question: 'Your name?', default: 'Ada' }),
  ]),
);
const outputs = (stdout: string): string[] =>
  (JSON.parse(stdout) as { output: string }[]).map((item) => item.output);

describe('agenttool run: the tools ask (ask_user, --answer)', function () {
  this.timeout(scaled(30_000));

  it('answers with the --answer values in the order the questions are asked', async () => {
    const { status, stdout, stderr } = await runCli([
      'run',
      turn,
      '--sequential',
      '--answer',
      '{"answer": "blue"}',
      '--answer',
      '{"action": "accept", "content": {"answer": "Grace"}}',
    ]);
    expect(status, stderr).to.equal(0);
    expect(outputs(stdout)).to.deep.equal(['the user answered: blue', 'the user answered: Grace']);
  });

  it('declines once the answers are used up, and takes decline and cancel as answers', async () => {
    const two = await runCli(['run', turn, '--sequential', '--answer', 'cancel']);
    expect(outputs(two.stdout)).to.deep.equal([
      'nobody answered (the question was dismissed)',
      'the user declined to answer, or could not be asked',
    ]);
    const one = await runCli(['run', turn, '--sequential', '--answer', 'decline']);
    expect(outputs(one.stdout)[0]).to.equal('the user declined to answer, or could not be asked');
  });

  it('declines at once when not at a terminal and nothing is scripted', async () => {
    const { status, stdout } = await runCli(['run', turn]);
    expect(status).to.equal(0);
    expect(outputs(stdout)).to.deep.equal([
      'the user declined to answer, or could not be asked',
      'the user declined to answer, or could not be asked',
    ]);
  });

  it('declines a question with an --answer that does not fit it, saying so in one line; the next answer goes on', async () => {
    const { status, stdout, stderr } = await runCli([
      'run',
      turn,
      '--sequential',
      '--answer',
      '{"answer": "green"}',
      '--answer',
      '{"answer": "Grace"}',
    ]);
    expect(status, stderr).to.equal(0);
    expect(outputs(stdout)).to.deep.equal([
      'the user declined to answer, or could not be asked',
      'the user answered: Grace',
    ]);
    // stderr also has the plain view's lines, one per start and end of a call.
    expect(stderr.split('\n').filter((line) => line.startsWith('agenttool:'))).to.deep.equal([
      'agenttool: --answer 1 does not fit the question of #0 ask_user ("Which colour?"): ' +
        'answer: expected one of "red", "blue"; declined',
    ]);
  });

  it('declines an accepted answer of the wrong type or with a field the question lacks', async () => {
    const { stdout, stderr } = await runCli([
      'run',
      turn,
      '--sequential',
      '--answer',
      '{"action": "accept", "content": {"answer": 3}}',
      '--answer',
      '{"answer": "Ada", "age": 36}',
    ]);
    expect(outputs(stdout)).to.deep.equal([
      'the user declined to answer, or could not be asked',
      'the user declined to answer, or could not be asked',
    ]);
    const lines = stderr.split('\n').filter((line) => line.startsWith('agenttool:'));
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(
      /^agenttool: --answer 1 does not fit .*: answer: expected text; declined$/,
    );
    expect(lines[1]).to.match(
      /^agenttool: --answer 2 does not fit .*: age: the question has no such field; declined$/,
    );
  });

  it('refuses an --answer that is not an answer, with one line and exit 2', async () => {
    const { status, stdout, stderr } = await runCli(['run', turn, '--answer', '[1]']);
    expect(status).to.equal(2);
    expect(stdout).to.equal('');
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.match(/^agenttool: --answer takes "decline", "cancel", or a JSON object/);
  });
});

describe('agenttool run --answer: a third-party server asking while other calls run', function () {
  this.timeout(scaled(30_000));

  it('answers every question in the order asked, whoever asks it', async () => {
    const fixture = join(root, 'test', 'fixtures', 'asking-server.mjs');
    const third = join(dir, 'third.json');
    const call = (call_id: string, question: string) => ({
      type: 'function_call',
      call_id,
      name: 'ask',
      arguments: JSON.stringify({ question }),
    });
    writeFileSync(third, JSON.stringify([call('a', 'First?'), call('b', 'Second?')]));
    const { status, stdout, stderr } = await runCli([
      'run',
      third,
      '--mcp',
      `${process.execPath} ${fixture}`,
      '--answer',
      '{"answer": "one"}',
      '--answer',
      '{"answer": "two"}',
    ]);
    expect(status, stderr).to.equal(0);
    // Both ran at once: the server's questions came with no call to own them. Before, both were
    // declined; now each took the next answer, in the order the server asked.
    const answered = outputs(stdout).map((text) => JSON.parse(text.slice(text.indexOf(' ') + 1)));
    expect(answered.map((a: { action: string }) => a.action)).to.deep.equal(['accept', 'accept']);
    expect(
      answered.map((a: { content: { answer: string } }) => a.content.answer).sort(),
    ).to.deep.equal(['one', 'two']);
  });
});

describe('agenttool run --answer: a page to visit (a URL question)', function () {
  this.timeout(scaled(30_000));

  it('tells the page and its answer on stderr, and answers it in turn', async () => {
    const fixture = join(root, 'test', 'fixtures', 'asking-server.mjs');
    const visit = join(dir, 'visit.json');
    writeFileSync(
      visit,
      JSON.stringify([
        {
          type: 'function_call',
          call_id: 'v',
          name: 'visit',
          arguments: JSON.stringify({ url: 'https://calendar.example.com/connect' }),
        },
      ]),
    );
    const { status, stdout, stderr } = await runCli([
      'run',
      visit,
      '--mcp',
      `${process.execPath} ${fixture}`,
      '--answer',
      '{}',
    ]);
    expect(status, stderr).to.equal(0);
    expect(outputs(stdout)).to.deep.equal(['visit {"action":"accept"}']);
    expect(stderr.split('\n').filter((line) => line.startsWith('agenttool:'))).to.deep.equal([
      'agenttool: #0 visit asks for a visit to https://calendar.example.com/connect ("Connect your calendar on its own page."): --answer 1 answers accept',
    ]);
  });
});
