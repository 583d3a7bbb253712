/**
 * What the model reads for a detached call in the turn it was asked for: the `result` output of
 * the call's `detached` event, and so its function_call_output (which names the call by its
 * `call_id`). Its result comes later, as {@link detachedResultItem}'s message.
 */
export const DETACHED_OUTPUT = 'started in the background; its result will be reported later';
