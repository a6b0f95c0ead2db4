// The command-line reader on its own (no child process): each option lands in the right field, `--flag=value`
// and `--` work, and every malformed command line is an error message in our words rather than a file name.
import assert from 'node:assert/strict';
import { readCommandLine, type ParsedArgs } from '../../../src/cli/args';
import { DEFAULT_RATIO_FLOOR } from '../../../src/core/defaults';

function check(args: string[]) {
  const parsed = readCommandLine(['check', ...args], false);
  assert.equal(parsed.kind, 'check', JSON.stringify(parsed));
  return (parsed as Extract<ParsedArgs, { kind: 'check' }>).options;
}

function error(args: string[]): string {
  const parsed = readCommandLine(args, false);
  assert.equal(parsed.kind, 'error', JSON.stringify(parsed));
  return (parsed as Extract<ParsedArgs, { kind: 'error' }>).message;
}

describe('command line', () => {
  it('reads check with its defaults', () => {
    const options = check(['a.jsonl', 'b.jsonl.gz']);
    assert.deepEqual(options.files, ['a.jsonl', 'b.jsonl.gz']);
    assert.equal(options.ratioFloor, DEFAULT_RATIO_FLOOR);
    assert.equal(options.json, false);
    assert.equal(options.sarif, false);
    assert.equal(options.coverageThreshold, undefined);
  });

  it('reads every value option, spaced or with =', () => {
    const options = check([
      '--threshold',
      '0.5',
      '--ratio-floor=3',
      '--budget',
      '4000',
      '--max-line-mb',
      '2',
      '--max-inflated-mb=1',
      '--max-inflate-ratio',
      '50',
      '--encoding',
      'cl100k_base',
      '--format',
      'codex',
      'f',
    ]);
    assert.equal(options.coverageThreshold, 0.5);
    assert.equal(options.ratioFloor, 3);
    assert.equal(options.budget, 4000);
    assert.equal(options.maxLineBytes, 2 * 1024 * 1024);
    assert.equal(options.maxInflatedBytes, 1024 * 1024);
    assert.equal(options.maxInflateRatio, 50);
    assert.equal(options.encoding, 'cl100k_base');
    assert.equal(options.format, 'codex');
  });

  it('lets the last of --color and --no-color win, starting from the terminal', () => {
    assert.equal(check(['--color', '--no-color', 'f']).color, false);
    assert.equal(check(['--no-color', '--color', 'f']).color, true);
    const saved = process.env.NO_COLOR;
    delete process.env.NO_COLOR;
    try {
      const onTerminal = readCommandLine(['check', 'f'], true);
      assert.equal(onTerminal.kind === 'check' && onTerminal.options.color, true);
      assert.equal(check(['f']).color, false);
    } finally {
      if (saved !== undefined) process.env.NO_COLOR = saved;
    }
  });

  it('takes everything after -- as a file name', () => {
    assert.deepEqual(check(['--json', '--', '--odd-name.jsonl', '-']).files, ['--odd-name.jsonl', '-']);
  });

  it('answers help and version', () => {
    for (const argv of [[], ['help'], ['-h'], ['--help'], ['check', '-h'], ['eval', '--help', '--bogus']]) {
      assert.equal(readCommandLine(argv, false).kind, 'help', JSON.stringify(argv));
    }
    assert.equal(readCommandLine(['--version'], false).kind, 'version');
  });

  it('reads eval with its labels, transcript and gate', () => {
    const parsed = readCommandLine(['eval', 'labels.json', 't.jsonl', '--min-agreement', '0.9', '--json'], false);
    assert.equal(parsed.kind, 'eval');
    const { options } = parsed as Extract<ParsedArgs, { kind: 'eval' }>;
    assert.equal(options.labelsPath, 'labels.json');
    assert.equal(options.transcriptPath, 't.jsonl');
    assert.equal(options.minAgreement, 0.9);
    assert.equal(options.json, true);
  });

  it('says what is wrong with a malformed command line', () => {
    const cases: Array<[string[], RegExp]> = [
      [['check', '--bogus', 'f'], /^unknown option --bogus \(see --help\)$/],
      [['check', '-x', 'f'], /^unknown option -x/],
      [['check', 'f', '--threshold'], /^--threshold needs a value/],
      [['check', '--json=yes', 'f'], /^--json takes no value, got "yes"$/],
      [['check', '--threshold', '-2', 'f'], /^--threshold needs a positive number, got "-2"$/],
      [['check', '--threshold=', 'f'], /^--threshold needs a positive number, got ""$/],
      [['check', '--encoding', 'utf8', 'f'], /^--encoding must be one of/],
      [['check', '--format', 'nope', 'f'], /^--format must be one of/],
      [['check', '--min-agreement', '0.9', 'f'], /is for eval/],
      [['eval', 'l.json', '--sarif'], /is for check/],
      [['eval', 'l.json', '--min-agreement', '2'], /fraction from 0 to 1/],
      [['check', '--json', '--sarif', 'f'], /cannot be used together/],
      [['check', '--anchor-matching', 'all', 'f'], /use --threshold/],
      [['check'], /needs at least one FILE/],
      [['eval'], /needs a LABELS\.json/],
      [['eval', 'a', 'b', 'c'], /at most one TRANSCRIPT/],
      [['frobnicate'], /unknown command "frobnicate"/],
    ];
    for (const [argv, expected] of cases) assert.match(error(argv), expected, JSON.stringify(argv));
  });
});
