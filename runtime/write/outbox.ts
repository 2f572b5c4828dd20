/** Recording a successful write in the API's outbox, inside the write's transaction. */
import type { OutboxEntry } from '../dsl/outbox.js';
import type { RequestState } from '../pipeline/state.js';
import type { WriteValues } from '../core/vocabulary.js';

/**
 * Calls the outbox's `record` for a write of `state`'s resource when the outbox records its
 * type: `values` are what the data layer was given (their member names become `changed`).
 */
export async function recordWrite(
  state: RequestState,
  action: OutboxEntry['action'],
  id: string,
  values?: WriteValues,
): Promise<void> {
  const outbox = state.outbox;
  if (!outbox || !outbox.types.includes(state.resource.type)) return;
  const changed = values ? [...Object.keys(values.attributes), ...Object.keys(values.relationships)].sort() : [];
  const entry: OutboxEntry = { action, type: state.resource.type, id, changed, occurredAt: new Date().toISOString() };
  await outbox.record(entry, state.context);
}
