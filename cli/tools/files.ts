/** `read_file` and `list_dir`: read-only file tools that run alongside everything else. */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { tool } from '../tool-contract.js';

export const readFileTool = tool({
  name: 'read_file',
  description: 'Read a UTF-8 text file.',
  parameters: z.object({
    path: z.string().describe('Path of the file to read'),
    max_bytes: z.number().int().positive().optional().describe('Stop after this many bytes'),
  }),
  annotations: { title: 'Read file', readOnlyHint: true, openWorldHint: false },
  async execute({ path, max_bytes }, context) {
    const text = await readFile(path, { encoding: 'utf8', signal: context.signal });
    return max_bytes === undefined ? text : text.slice(0, max_bytes);
  },
});

export const listDir = tool({
  name: 'list_dir',
  description: 'List the entries of a directory, with a trailing / on directories.',
  parameters: z.object({ path: z.string().describe('Directory to list') }),
  annotations: { title: 'List directory', readOnlyHint: true, openWorldHint: false },
  async execute({ path }) {
    const names = (await readdir(path)).sort();
    const entries = await Promise.all(
      names.map(async (name) => ((await stat(join(path, name))).isDirectory() ? `${name}/` : name)),
    );
    return entries.join('\n');
  },
});
