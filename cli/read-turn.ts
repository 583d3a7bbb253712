/**
 * Reading a model turn: Open Responses output items from a JSON file (an array of items, a
 * response object with `output`, or one item) or from JSONL (one item per line).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import type { FunctionCallItem, OutputItem } from '../index.js';
import { jsonSyntaxError, lineAndColumn } from './json-syntax.js';
import { UsageError } from './usage-error.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function checkItem(item: unknown, where: string): OutputItem {
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    throw new UsageError(`${where}: an item must be a JSON object`);
  const record = item as { [key: string]: unknown };
  if (typeof record.type !== 'string')
    throw new UsageError(`${where}: an item needs a string "type"`);
  if (record.type === 'function_call') {
    for (const key of ['call_id', 'name', 'arguments'] as const)
      if (typeof record[key] !== 'string')
        throw new UsageError(`${where}: a function_call needs a string "${key}"`);
    if ((record as unknown as FunctionCallItem).call_id === '')
      throw new UsageError(`${where}: a function_call needs a non-empty "call_id"`);
  }
  return record as OutputItem;
}

/**
 * The error for JSON `text` that does not parse: `<source>: line L, column C: not valid JSON:
 * <what is there>`, where `prefix` names the line of a JSON Lines text.
 */
function notJson(text: string, source: string, prefix: string): UsageError {
  const error = jsonSyntaxError(text);
  if (error === undefined) return new UsageError(`${source}: not valid JSON`);
  const where = lineAndColumn(text, error.offset);
  // In a line of JSON Lines the position is that line's column, and the line is the file's.
  const at = prefix === '' ? where : `${prefix}${where.replace(/^line 1, /, '')}`;
  return new UsageError(`${source}: ${at}: not valid JSON: ${error.problem}`);
}

/**
 * Parses turn text: one JSON document, or else JSON Lines (when its first line is JSON on its
 * own). Text that is neither is reported at the line and column of its first syntax error.
 */
export function parseTurn(text: string, source: string): OutputItem[] {
  let doc: unknown;
  let items: unknown[];
  try {
    doc = JSON.parse(text);
  } catch {
    doc = undefined;
  }
  if (doc === undefined) {
    const lines = text.split('\n');
    const first = lines.find((line) => line.trim() !== '') ?? '';
    // A first line that is JSON on its own makes JSON Lines; else the text is one document.
    if (jsonSyntaxError(first) !== undefined) throw notJson(text, source, '');
    items = [];
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        items.push(JSON.parse(line));
      } catch {
        throw notJson(line, source, `line ${i + 1}, `);
      }
    });
  } else if (Array.isArray(doc)) items = doc;
  else if (
    typeof doc === 'object' &&
    doc !== null &&
    Array.isArray((doc as { output?: unknown }).output)
  )
    items = (doc as { output: unknown[] }).output;
  else items = [doc];
  const checked = items.map((item, i) => checkItem(item, `${source}: item ${i + 1}`));
  const ids = new Set<string>();
  for (const item of checked) {
    if (item.type !== 'function_call') continue;
    const id = (item as FunctionCallItem).call_id;
    if (ids.has(id)) throw new UsageError(`${source}: call_id ${JSON.stringify(id)} is used twice`);
    ids.add(id);
  }
  if (!checked.some((item) => item.type === 'function_call'))
    throw new UsageError(`${source}: no function_call items`);
  return checked;
}

/** Reads the turn from `path`, or from stdin when `path` is undefined or "-". */
export async function readTurn(path: string | undefined): Promise<OutputItem[]> {
  const fromStdin = path === undefined || path === '-';
  if (fromStdin && process.stdin.isTTY === true)
    throw new UsageError('no turn: give a turn file, or pipe JSONL on stdin');
  let text: string;
  try {
    text = fromStdin ? await readStdin() : await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  if (text.trim() === '') throw new UsageError(`${fromStdin ? 'stdin' : path}: empty turn`);
  return parseTurn(text, fromStdin ? 'stdin' : path);
}
