/**
 * A client process that calls a remote task tool and writes its journal as it goes (each call as
 * it starts, each record, each final event: one JSON line each), for the test that kills it
 * mid-task and resumes the batch from the journal (test/mcp/tasks/mcp-tasks-client.test.ts).
 *
 * Run: `node --import tsx test/support/task-client.ts <server url> <journal file> <label>`.
 */
import { appendFileSync } from 'node:fs';
import { connectMcp, httpTransport } from '../../adapters/mcp-client/index.js';
import { endedCall, executeBatch, recordedCall, startedCall } from '../../index.js';

const [url, journal, label] = process.argv.slice(2) as [string, string, string];
const write = (entry: object): void => appendFileSync(journal, `${JSON.stringify(entry)}\n`);
const remote = await connectMcp(httpTransport(new URL(url)));
const gate = remote.tools.find((tool) => tool.name === 'gate')!;
executeBatch([{ tool: gate, call: { id: 'call_1', args: JSON.stringify({ label }) } }], {
  onStart: (job) => write({ started: startedCall(job) }),
  recorder: (record, call) => write({ recorded: recordedCall(record, call) }),
}).subscribe((event) => {
  if (!event.final) process.stdout.write(`progress ${String(event.result!.output)}\n`);
  const ended = endedCall(event);
  if (ended !== undefined) write({ ended });
});
