// The saved form of the hourly windows (gateway/store/sqlite/window-snapshot.ts): every subject round-trips,
// and a snapshot of another version or cut short is refused rather than misread.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeWindows, encodeWindows } from '../gateway/store/sqlite/window-snapshot.ts';

describe('window snapshots', () => {
  const cases: [string, [string, number, number, number][]][] = [
    ['none', []],
    [
      'account ids',
      [
        ['1', 1795348800000, 7, 1795348800000],
        ['123456789', 1795348800123, 4294967295, 1795348800123],
      ],
    ],
    [
      'addresses, IPv6 by /64',
      [
        ['192.0.2.1', 1795348800000, 1, 1795348800000],
        ['2001:db8:1:2::/64', 1795348801000, 10, 1795348801000],
      ],
    ],
    ['any UTF-8 subject', [['é—✓', 1, 2, 1]]],
  ];
  for (const [name, rows] of cases) {
    it(`round-trips ${name}`, () => {
      const map = new Map(rows.map(([k, start, count, last]) => [k, { start, count, last, unsaved: 0 }]));
      assert.deepEqual(decodeWindows(encodeWindows(map)), rows);
    });
  }
  it('refuses a snapshot of another version or cut short', () => {
    const whole = encodeWindows(new Map([['42', { start: 1795348800000, count: 3, last: 1795348800500, unsaved: 0 }]]));
    assert.throws(() => decodeWindows(Buffer.from([3])), /not a version 1 or 2 window snapshot/);
    assert.throws(() => decodeWindows(Buffer.alloc(0)), /not a version 1 or 2 window snapshot/);
    for (let cut = 2; cut < whole.length; cut++)
      assert.throws(() => decodeWindows(whole.subarray(0, cut)), /cut short/);
  });
});
