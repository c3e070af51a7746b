// What the reducers' tests share: feeding messages to a reducer in order, checking at
// each step that the state given is never changed.
import assert from "node:assert/strict";

const json = (state) => JSON.stringify(state, (k, v) => (v instanceof Map ? [...v] : v));

/**
 * A `play(state, ...messages)` for `reducer` (reduce.js's `reduce`, admin.js's
 * `reduceConsole`): the last state and every effect, in order.
 */
export function player(reducer) {
  return function play(state, ...messages) {
    const effects = [];
    for (const m of messages) {
      const before = json(state);
      const r = reducer(state, m);
      assert.equal(json(state), before, "the reducer changed its input on " + m.type);
      state = r.state;
      effects.push(...r.effects);
    }
    return { state, effects };
  };
}
