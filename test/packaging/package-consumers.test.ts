import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publint } from 'publint';
import { root } from '../support/cli.js';
import { consumerCompilerOptions, consumerFolder, packedPackage } from '../support/package.js';
import { scaled } from '../support/time.js';

/** Runs a CLI from node_modules/.bin, returning its exit code and output. */
function run(bin: string, args: string[], cwd = root): { code: number; out: string } {
  try {
    const out = execFileSync(join(root, 'node_modules/.bin', bin), args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, out };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, out: `${e.stdout}${e.stderr}` };
  }
}

/** A consumer's tsconfig.json for its app.ts: strict NodeNext ESM, with `options` on top. */
function writeTsconfig(dir: string, options: Record<string, unknown>): void {
  const compilerOptions = { ...consumerCompilerOptions, ...options };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['app.ts'] }));
}

describe('the packed package, as consumers see it', function () {
  this.timeout(scaled(240_000));

  it('publint reports nothing', async () => {
    const tarball = readFileSync(packedPackage());
    const { messages } = await publint({
      // The files of a tarball sit under package/.
      pkgDir: 'package',
      pack: {
        tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.length),
      },
      level: 'suggestion',
    });
    expect(messages.map((m) => `${m.code} ${m.path.join('.')}`)).to.deep.equal([]);
  });

  it('are-the-types-wrong reports nothing for node10, ESM and bundler consumers', () => {
    // Every resolution: node10 finds each entry's types through typesVersions. A require() from
    // CommonJS gets the ES module (Node 20.19 loads it); that one finding is the package's design.
    const { code, out } = run('attw', [
      packedPackage(),
      '--ignore-rules',
      'cjs-resolves-to-esm',
      '--format',
      'json',
    ]);
    const report = JSON.parse(out) as {
      analysis: { problems: { kind: string; resolutionKind?: string }[] };
    };
    const problems = report.analysis.problems.filter((p) => p.kind !== 'CJSResolvesToESM');
    expect(problems).to.deep.equal([]);
    expect(code).to.equal(0);
  });

  it('ships what runs, not the command line’s declarations nor the web page’s sources', () => {
    const listed = execFileSync('tar', ['-tzf', packedPackage()], { encoding: 'utf8' }).split('\n');
    expect(listed.filter((f) => /^package\/dist\/cli\/.*\.d\.ts$/.test(f))).to.deep.equal([]);
    expect(listed.filter((f) => f.startsWith('package/dist/cli/ui/page/'))).to.deep.equal([]);
    expect(listed).to.include.members([
      'package/dist/cli/main.js',
      'package/dist/ui/app.js',
      'package/dist/index.d.ts',
    ]);
    // npm would rewrite a bin path with "../" when publishing, and warn.
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin).to.deep.equal({ agenttool: 'dist/cli/main.js' });
  });

  it('the shipped types compile under exactOptionalPropertyTypes with skipLibCheck off', () => {
    const dir = consumerFolder('strict-consumer');
    writeTsconfig(dir, {
      lib: ['ES2022', 'DOM'],
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      noEmit: true,
    });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(
      join(dir, 'app.ts'),
      `import { z } from 'zod';
import { executeBatch, tool } from 'agenttool';
import { toOutputItems } from 'agenttool/operators';
import { connectMcp, httpTransport } from 'agenttool/mcp/client';
import { stdioTransport } from 'agenttool/mcp/stdio';
import { createMcpServer, serveHttp } from 'agenttool/mcp/server';
import { stubTool } from 'agenttool/testing';
import { toolBatchResource } from 'agenttool/angular';
const t = tool({
  name: 'greet',
  description: 'Greets',
  parameters: z.object({ who: z.string() }),
  execute: ({ who }) => 'hello ' + who,
});
export const uses = [executeBatch, toOutputItems, connectMcp, httpTransport, stdioTransport,
  createMcpServer, serveHttp, stubTool, toolBatchResource, t];
`,
    );
    const { code, out } = run('tsc', ['-p', join(dir, 'tsconfig.json')], dir);
    expect(out).to.equal('');
    expect(code).to.equal(0);
  });

  it("a module exporting what the MCP adapters return emits declarations where the SDK is not the application's to name (pnpm)", () => {
    // pnpm's layout: the application's node_modules holds its own dependencies alone (agenttool,
    // zod); agenttool's peers (the SDK) sit beside agenttool, out of the application's reach.
    const dir = mkdtempSync(join(tmpdir(), 'agenttool-pnpm-like-'));
    try {
      mkdirSync(join(dir, 'node_modules'));
      consumerFolder('pnpm-like-build'); // builds the package
      symlinkSync(root, join(dir, 'node_modules', 'agenttool'), 'dir');
      symlinkSync(join(root, 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'), 'dir');
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
      writeTsconfig(dir, {
        declaration: true,
        emitDeclarationOnly: true,
        skipLibCheck: true,
        types: [],
        outDir: 'out',
      });
      writeFileSync(
        join(dir, 'app.ts'),
        `import { createMcpServer, serveHttp } from 'agenttool/mcp/server';
import { connectMcp, httpTransport, RemoteTool, RemoteToolError, type McpRemote } from 'agenttool/mcp/client';
export const server = createMcpServer({ name: 'app', version: '1' }, []);
export const serving = () => serveHttp({ port: 0, factory: () => server });
export const transport = httpTransport('http://127.0.0.1:3000/mcp');
export const connect = () => connectMcp(transport);
export const client = (remote: McpRemote) => remote.client;
export const info = (remote: McpRemote) => remote.serverInfo;
export const definition = (tool: RemoteTool) => tool.definition;
export const details = (error: RemoteToolError) => error.details;
`,
      );
      const { code, out } = run('tsc', ['-p', join(dir, 'tsconfig.json')], dir);
      // Before the SDK's types were re-exported: TS2742, "cannot be named without a reference to
      // 'agenttool/node_modules/@modelcontextprotocol/server'".
      expect(out).to.equal('');
      expect(code).to.equal(0);
      const emitted = readFileSync(join(dir, 'out', 'app.d.ts'), 'utf8');
      expect(emitted).to.contain('import("agenttool/mcp/server").Server');
      expect(emitted).to.contain('import("agenttool/mcp/client").Transport');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
