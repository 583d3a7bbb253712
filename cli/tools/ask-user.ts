/** `ask_user`: asks the person running the turn a question, as a form, and returns the answer. */
import { z } from 'zod';
import { tool } from '../tool-contract.js';
import type { ElicitField } from '../../index.js';

export const askUser = tool({
  name: 'ask_user',
  description:
    'Ask the user a question and return their answer; with `choices`, the answer is one of them. ' +
    'Says so when the user declines or nobody can answer.',
  parameters: z.object({
    question: z.string().min(1).max(2000).describe('The question, for a person'),
    choices: z
      .array(z.string().min(1).max(200))
      .min(2)
      .max(20)
      .optional()
      .describe('The answers to choose from (default: free text)'),
    default: z.string().max(2000).optional().describe('The answer offered first'),
  }),
  annotations: { title: 'Ask the user', readOnlyHint: true, openWorldHint: false },
  async execute({ question, choices, default: offered }, context) {
    const field: ElicitField = { type: 'string', title: 'answer' };
    if (choices !== undefined) field.enum = choices;
    if (offered !== undefined) field.default = offered;
    const answer = await context.elicit({
      message: question,
      schema: { type: 'object', properties: { answer: field }, required: ['answer'] },
    });
    if (answer.action === 'accept') return `the user answered: ${String(answer.content.answer)}`;
    if (answer.action === 'decline') return 'the user declined to answer, or could not be asked';
    return 'nobody answered (the question was dismissed)';
  },
});
