/**
 * `confirm_step`: asks the person whether to go ahead with a step (`context.elicit`), and says
 * what they answered. Headless (no one to ask) the question is declined at once, and the tool
 * says so.
 */
import { z } from 'zod';
import { tool } from '../tool-contract.js';
import type { ElicitSchema } from '../../index.js';

/** The question's form: go ahead or not, and an optional note. */
const QUESTION: ElicitSchema = {
  type: 'object',
  properties: {
    go_ahead: { type: 'boolean', title: 'Go ahead', default: true },
    note: { type: 'string', title: 'Note', description: 'Anything the model should know' },
  },
  required: ['go_ahead'],
};

export const confirmStep = tool({
  name: 'confirm_step',
  description:
    'Ask the person whether to go ahead with a step; returns their answer and note, if any.',
  parameters: z.object({ step: z.string().min(1).max(500).describe('The step to confirm') }),
  annotations: { title: 'Confirm a step', readOnlyHint: true, openWorldHint: false },
  async execute({ step }, context) {
    const answer = await context.elicit({ message: `Go ahead with: ${step}?`, schema: QUESTION });
    if (answer.action === 'decline') return `the person declined to answer about "${step}"`;
    if (answer.action === 'cancel') return `the person dismissed the question about "${step}"`;
    const { go_ahead, note } = answer.content;
    const said = go_ahead === true ? `go ahead with "${step}"` : `do not go ahead with "${step}"`;
    return typeof note === 'string' && note !== '' ? `${said}; note: ${note}` : said;
  },
});
