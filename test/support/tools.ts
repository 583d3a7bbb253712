import { z } from 'zod';
import { tool } from '../../index.js';

/** A typed tool that answers its `text` argument: the plainest call a server can serve. */
export const echo = tool({
  name: 'echo',
  description: 'Echo the text.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
