// What the tabs share, and how they tell each other what happened. A tab
// that must react to another (the heat map to a shown collection, a pair's
// banner to new documents) listens for an event here instead of importing
// that tab, so every module imports only the modules below it and none of
// them can find another half-run (no import circle).
//
// Events, each emitted synchronously to its handlers in the order they were
// added:
// - 'tab' (tab element): a tab was selected and its panel shown;
// - 'collection' (): a collection's result is in collection.result and shown;
// - 'open-pair' (pair): open a pair of the collection in Evidence;
// - 'documents-replaced' (): the user typed, chose, dropped or cleared a document A or B.

/** The Collection tab's chosen files (documents or submissions, and sources) and its last result, read by the heat map and the pair views. */
export const collection = { files: [], sources: [], result: null };

const handlers = new Map();

/** Calls `handler` with the event's arguments each time `event` is emitted. */
export function on(event, handler) {
  if (!handlers.has(event)) handlers.set(event, []);
  handlers.get(event).push(handler);
}

export function emit(event, ...args) {
  for (const handler of handlers.get(event) || []) handler(...args);
}
