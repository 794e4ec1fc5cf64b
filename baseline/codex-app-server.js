'use strict';
/**
 * A plain-JS fold of Codex app-server notifications, for the benchmarks: written the way a
 * GUI that drives `codex app-server` keeps its thread — the turns in order, each a map of
 * its items by id, `item/started` putting an item in, each delta appended to its item's
 * field, `item/completed` replacing the item whole. It trusts its input (no checks) and
 * keeps the items as the server sent them (no chunk model).
 */

function createAppServerFold() {
  const turns = [];
  const byId = new Map();
  let turn;
  const openTurn = (id) => {
    turn = { id, status: 'inProgress', error: null, items: new Map() };
    turns.push(turn);
  };
  const item = (params) => {
    if (!turn || turn.id !== params.turnId) openTurn(params.turnId);
    return turn.items.get(params.itemId);
  };
  return {
    turns,
    push(message) {
      const params = message.params;
      switch (message.method) {
        case 'turn/started':
          openTurn(params.turn.id);
          break;
        case 'item/started':
        case 'item/completed': {
          if (!turn || turn.id !== params.turnId) openTurn(params.turnId);
          const value = { ...params.item };
          turn.items.set(value.id, value);
          byId.set(value.id, value);
          break;
        }
        case 'item/agentMessage/delta': {
          const it = item(params);
          if (it) it.text += params.delta;
          break;
        }
        case 'item/reasoning/summaryTextDelta': {
          const it = item(params);
          if (it) {
            while (it.summary.length <= params.summaryIndex) it.summary.push('');
            it.summary[params.summaryIndex] += params.delta;
          }
          break;
        }
        case 'item/commandExecution/outputDelta': {
          const it = item(params);
          if (it) it.aggregatedOutput = (it.aggregatedOutput ?? '') + params.delta;
          break;
        }
        case 'error':
          if (!params.willRetry && turn) turn.error = params.error;
          break;
        case 'turn/completed':
          if (turn) {
            turn.status = params.turn.status;
            turn.error = turn.error ?? params.turn.error;
          }
          break;
      }
    },
  };
}

module.exports = { createAppServerFold };
