import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from '../support/sources.js';

const root = resolve(import.meta.dirname, '..', '..');

/** Every module a file imports or re-exports, static or dynamic, resolved to a project path when relative. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map(({ fileName }) =>
    fileName.startsWith('.') ? relative(root, resolve(file, '..', fileName)) : fileName,
  );
}

function violations(folder: string, forbidden: (specifier: string) => boolean): string[] {
  return sourceFiles(folder).flatMap((file) =>
    importsOf(join(root, file))
      .filter(forbidden)
      .map((specifier) => `${file} imports ${specifier}`),
  );
}

const isSdk = (s: string): boolean => s.startsWith('@modelcontextprotocol/');

describe('package boundaries', () => {
  it('finds the imports it checks (the scanner sees relative and package imports)', () => {
    expect(importsOf(join(root, 'lib', 'tool.ts'))).to.include('lib/schema/schema.js');
    expect(importsOf(join(root, 'lib', 'tool.ts'))).to.include('rxjs');
  });

  it('lib/ imports nothing from operators/ or adapters/', () => {
    expect(
      violations('lib', (s) => s.startsWith('operators') || s.startsWith('adapters')),
    ).to.deep.equal([]);
  });

  it('lib/ never imports the MCP SDK', () => {
    expect(violations('lib', isSdk)).to.deep.equal([]);
  });

  it('operators/ imports nothing from adapters/ and never the MCP SDK', () => {
    expect(violations('operators', (s) => s.startsWith('adapters') || isSdk(s))).to.deep.equal([]);
  });

  it('testing/ never imports the MCP SDK', () => {
    expect(violations('testing', isSdk)).to.deep.equal([]);
  });

  it('adapters/wire/ imports no SDK nor Node module: the protocols are its own types (test/types/wire.test-d.ts)', () => {
    const allowed = (s: string): boolean =>
      s === 'rxjs' ||
      s.startsWith('lib/') ||
      s.startsWith('adapters/wire/') ||
      (s.startsWith('operators/') && !s.startsWith('operators/internal/'));
    expect(violations('adapters/wire', (s) => !allowed(s))).to.deep.equal([]);
  });

  it('adapters/ import nothing from operators/internal/: span hooks are lib/telemetry/’s', () => {
    expect(violations('adapters', (s) => s.startsWith('operators/internal'))).to.deep.equal([]);
  });

  it('cli/ imports nothing from operators/internal/: the engine as its users see it', () => {
    expect(violations('cli', (s) => s.startsWith('operators/internal'))).to.deep.equal([]);
  });

  it('the pipeline model imports none of the engine’s helpers, so their bugs show as differences', () => {
    const model = join(root, 'marbles', 'pipeline-model.ts');
    const engine = importsOf(model).filter(
      (s) => s.startsWith('operators/') && s !== 'operators/job.js',
    );
    expect(engine).to.deep.equal([]);
  });
});
