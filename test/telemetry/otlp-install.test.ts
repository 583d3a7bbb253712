/**
 * The line `--otlp` prints when OpenTelemetry's SDK is missing (cli/otlp.ts), which README.md and
 * docs/telemetry.md give too, installs as written on this Node (20 or 22) into an empty project,
 * within the peer range agenttool declares for the API, and what it installs loads as `--otlp`
 * uses it. The install goes through npm's cache first; without the registry or the cache the test
 * is skipped, saying so.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OTLP_INSTALL } from '../../cli/otlp.js';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url);

describe('the install line for --otlp', function () {
  this.timeout(180_000);

  it('is the line README.md, docs/telemetry.md and docs/cli.md give', () => {
    const line = `npm install ${OTLP_INSTALL}`;
    for (const doc of ['README.md', 'docs/telemetry.md']) {
      expect(readFileSync(new URL(doc, root), 'utf8'), doc).to.include(line);
    }
    const cli = readFileSync(new URL('docs/cli.md', root), 'utf8').replace(/\s+/g, ' ');
    expect(cli).to.include(line);
  });

  it('installs as written on this Node, within agenttool’s peer range, and loads', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'agenttool-otlp-'));
    try {
      writeFileSync(join(dir, 'package.json'), '{"name":"scratch","private":true,"type":"module"}');
      try {
        await run(
          'npm',
          ['install', '--prefer-offline', '--no-audit', '--no-fund', ...OTLP_INSTALL.split(' ')],
          { cwd: dir },
        );
      } catch (err) {
        const text = String((err as { stderr?: unknown }).stderr ?? err);
        if (
          /ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET|ENOTCACHED|ENETUNREACH/.test(text)
        ) {
          console.log(
            `      skipped: the npm registry and cache are unreachable (${text.split('\n')[0]})`,
          );
          this.skip();
        }
        throw new Error(`npm install ${OTLP_INSTALL} failed on Node ${process.version}:\n${text}`);
      }
      const api = JSON.parse(
        readFileSync(join(dir, 'node_modules/@opentelemetry/api/package.json'), 'utf8'),
      ) as { version: string };
      const ours = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
        peerDependencies: Record<string, string>;
      };
      // agenttool's peer range for the API is ^1.4.0; the SDK's 2.x line asks for below 1.10.
      expect(ours.peerDependencies['@opentelemetry/api']).to.equal('^1.4.0');
      const [major, minor] = api.version.split('.').map(Number);
      expect(major === 1 && minor! >= 4 && minor! < 10, api.version).to.equal(true);
      // What cli/otlp.ts takes from each package, put together as it does.
      writeFileSync(
        join(dir, 'load.mjs'),
        `
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new OTLPTraceExporter({ url: 'http://127.0.0.1:9/v1/traces', timeoutMillis: 100 });
const provider = new TracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'agenttool' }),
  spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1000 })],
});
api.trace.setGlobalTracerProvider(provider);
await provider.shutdown();
console.log('loaded');
`,
      );
      const { stdout } = await run(process.execPath, ['load.mjs'], { cwd: dir });
      expect(stdout).to.equal('loaded\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
