/**
 * The tools the example MCP server serves: text, JSON and an image, one of them strict.
 *
 * @module
 */
import { z } from 'zod';
import { imagePart, tool, type Tool } from '../index.js';

/** A 1x1 PNG, small enough to read in a test's output. */
export const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** `upper`: text in, text out. */
export const upper = tool({
  name: 'upper',
  description: 'Return the text in upper case.',
  parameters: z.object({ text: z.string().describe('The text to convert') }),
  annotations: { title: 'Upper case', readOnlyHint: true, idempotentHint: true },
  execute: ({ text }) => text.toUpperCase(),
});

/** `add`: a strict schema; the answer is JSON. */
export const add = tool({
  name: 'add',
  description: 'Add two numbers.',
  parameters: z.object({
    a: z.number().describe('The first number'),
    b: z.number().describe('The second number'),
  }),
  strict: true,
  annotations: { readOnlyHint: true },
  execute: ({ a, b }) => ({ sum: a + b }),
});

/** `tiny_image`: no arguments; the answer is an image part. */
export const tinyImage = tool({
  name: 'tiny_image',
  description: 'Return a tiny PNG image.',
  annotations: { readOnlyHint: true, openWorldHint: false },
  execute: () => imagePart({ data: TINY_PNG, mimeType: 'image/png' }),
});

/** Every example tool, in the order the server lists them. */
export const exampleTools: readonly Tool[] = [upper, add, tinyImage];
