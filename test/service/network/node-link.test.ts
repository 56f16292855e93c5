// The rule that steps a fleet instance down from a network's roles: no usable node of the network for NODE_LINK_DOWN_MS.
import { describe, expect, it } from 'vitest';
import { mayHoldRoles, NODE_LINK_DOWN_MS } from '../../../src/service/network/node-link.js';

describe('mayHoldRoles', () => {
  const rows: [string, number | null, number, boolean][] = [
    ['a usable node', null, 1_000_000, true],
    ['no usable node for a moment', 1_000_000, 1_000_001, true],
    ['no usable node for just under the limit', 1_000_000, 1_000_000 + NODE_LINK_DOWN_MS - 1, true],
    ['no usable node for the limit', 1_000_000, 1_000_000 + NODE_LINK_DOWN_MS, false],
    ['no usable node for long', 0, 1_000_000, false],
  ];
  it.each(rows)('%s -> %s', (_what, downSince, now, expected) => expect(mayHoldRoles(downSince, now)).toBe(expected));

  it('takes another limit when given one', () => {
    expect(mayHoldRoles(0, 499, 500)).toBe(true);
    expect(mayHoldRoles(0, 500, 500)).toBe(false);
  });
});
