// Line editing of the raw-mode prompts: keys in, value, echo and outcome out.
import { describe, expect, it } from 'vitest';
import { editLine } from '../../src/cli/prompt-line-edit.js';

describe('editLine', () => {
  it.each([
    // [start, input, hidden, value, echo, outcome, rest]
    ['', 'ada@x.io\r', false, 'ada@x.io', 'ada@x.io', 'enter', ''],
    ['', 'abc', false, 'abc', 'abc', 'more', ''],
    ['ab', 'c\n', false, 'abc', 'c', 'enter', ''],
    ['', 'secret\r', true, 'secret', '', 'enter', ''],
    ['', 'secrx\x7ft\r', true, 'secrt', '', 'enter', ''],
    ['', 'ab\x7f\x7f\x7fc\r', false, 'c', 'ab\b \b\b \bc', 'enter', ''],
    ['', 'a\bb\r', false, 'b', 'a\b \bb', 'enter', ''],
    ['', 'héllo🙂\x7f\r', true, 'héllo', '', 'enter', ''],
    ['', 'wrong\x15right\r', true, 'right', '', 'enter', ''],
    ['', 'a\x1b[Db\x1bOAc\r', false, 'abc', 'abc', 'enter', ''],
    ['', 'one\r\ntwo\r', false, 'one', 'one', 'enter', 'two\r'],
    ['', 'one\rtwo', true, 'one', '', 'enter', 'two'],
    ['', 'pw\x03', true, 'pw', '', 'cancel', ''],
    ['', '\x04', true, '', '', 'eof', ''],
    ['x', '\x04y\r', false, 'xy', 'y', 'enter', ''],
    ['', 'a\tb\r', false, 'ab', 'ab', 'enter', ''],
  ])('%j + %j (hidden %s)', (start, input, hidden, value, echo, outcome, rest) => {
    expect(editLine(start, input, hidden)).toEqual({ value, echo, outcome, rest });
  });
});
