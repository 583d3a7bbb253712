import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { root } from '../support/cli.js';
import { buildPackage } from '../support/package.js';
import { scaled } from '../support/time.js';

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string; default: string } | string>;
  bin: Record<string, string>;
};

describe('the package', function () {
  this.timeout(scaled(120_000));

  before(() => {
    buildPackage();
  });

  it('npm run build emits JavaScript and a .d.ts for every entry point', () => {
    for (const [entry, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'string') continue;
      expect(existsSync(join(root, target.default)), `${entry} → ${target.default}`).to.equal(true);
      expect(existsSync(join(root, target.types)), `${entry} → ${target.types}`).to.equal(true);
    }
  });

  it('every entry point resolves by its package name, with its public names', () => {
    const script = `
      const names = {};
      for (const entry of ['agenttool', 'agenttool/operators', 'agenttool/schema', 'agenttool/mcp/client', 'agenttool/mcp/stdio', 'agenttool/mcp/server', 'agenttool/redis', 'agenttool/testing', 'agenttool/angular', 'agenttool/wire']) {
        names[entry] = Object.keys(await import(entry)).sort();
      }
      console.log(JSON.stringify(names));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    });
    const names = JSON.parse(out) as Record<string, string[]>;
    expect(names['agenttool']).to.include.members([
      'tool',
      'rawTool',
      'executeBatch',
      'ToolSet',
      'schemaOf',
      'ValidationError',
    ]);
    // Argument checking outside tool() is its own entry's, not the root's.
    expect(names['agenttool/schema']).to.include.members([
      'compileValidator',
      'compileZodSchema',
      'zodValidationError',
      'checksOwnArguments',
    ]);
    expect(names['agenttool']).not.to.include.members(['compileValidator', 'checksOwnArguments']);
    expect(names['agenttool/operators']).to.include.members([
      'executeBatch',
      'executeCalls',
      'batchResults',
      'chains',
      'jobsFromItems',
      'toOutputItems',
    ]);
    expect(names['agenttool/mcp/client']).to.include('connectMcp');
    expect(names['agenttool/mcp/client']).to.not.include('stdioTransport');
    expect(names['agenttool/mcp/stdio']).to.deep.equal(['stdioTransport']);
    expect(names['agenttool/mcp/server']).to.include.members([
      'createMcpServer',
      'serveStdio',
      'serveHttp',
      'memoryTaskStore',
    ]);
    expect(names['agenttool/redis']).to.deep.equal([
      'jobIdOf',
      'queueTools',
      'redisTaskStore',
      'runWorker',
    ]);
    expect(names['agenttool/testing']).to.include('stubTool');
    expect(names['agenttool/angular']).to.deep.equal(['tickElapsed', 'toolBatchResource']);
    expect(names['agenttool/wire']).to.include.members([
      'toUIMessageStream',
      'uiMessageStreamResponse',
      'pipeUIMessageStream',
      'approvalResponses',
      'toAgUiEvents',
      'agUiResponse',
      'pipeAgUiEvents',
      'WireQuestions',
    ]);
  });

  it('the built bin runs without a TypeScript loader', () => {
    const bin = join(root, manifest.bin['agenttool']!);
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node')).to.equal(true);
    expect(execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' })).to.equal(
      'agenttool 0.1.0\n',
    );
    const list = JSON.parse(
      execFileSync(process.execPath, [bin, 'run', '--list'], { cwd: root, encoding: 'utf8' }),
    );
    expect(list.map((d: { name: string }) => d.name)).to.include('bash');
  });

  it('ships no source maps, a LICENSE, and says where it comes from', () => {
    const maps = (readdirSync(join(root, 'dist'), { recursive: true }) as string[]).filter((f) =>
      f.endsWith('.map'),
    );
    expect(maps).to.deep.equal([]);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      license: string;
      repository: { url: string };
      homepage: string;
    };
    expect(pkg.license).to.equal('MIT');
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).to.match(
      /^MIT License\n\nCopyright \(c\) \d{4} agenttool contributors\n/,
    );
    expect(pkg.repository.url).to.match(/^git\+https:\/\/github\.com\//);
    expect(pkg.homepage).to.match(/^https:\/\/github\.com\/.*#readme$/);
  });

  it('npm run build starts from an empty dist/', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['build']).to.match(/^npm run clean --silent && /);
    // The clean script, run where npm runs it, in a scratch folder: the other test files, running
    // at the same time, read the real dist/.
    const scratch = mkdtempSync(join(root, 'test-output', 'clean-'));
    const stale = join(scratch, 'dist', 'stale.js');
    mkdirSync(join(scratch, 'dist'));
    writeFileSync(stale, '');
    execFileSync('sh', ['-c', pkg.scripts['clean']!], { cwd: scratch });
    expect(existsSync(stale)).to.equal(false);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('zod, rxjs and the MCP SDK are peers only, the SDK optional', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    const sdk = [
      '@modelcontextprotocol/client',
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/core',
      '@modelcontextprotocol/node',
    ];
    for (const peer of ['zod', 'rxjs', ...sdk]) {
      expect(pkg.dependencies, peer).to.not.have.property(peer);
      expect(pkg.peerDependencies, peer).to.have.property(peer);
    }
    for (const peer of [...sdk, '@angular/core'])
      expect(pkg.peerDependenciesMeta[peer]?.optional, peer).to.equal(true);
    expect(pkg.peerDependenciesMeta['zod']).to.equal(undefined);
  });
});
