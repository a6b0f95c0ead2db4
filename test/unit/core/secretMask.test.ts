// core/secretMask: what looks like a secret is masked (each kind, in the places transcripts hold them: prose,
// shell commands, JSON, escaped JSON, env files, headers), what does not is left alone (ids, paths, git hashes,
// digests, prose about tokens), and hostile text of about 1 MB goes through in linear time (no timed assertion:
// mocha's per-test timeout is the guard). Fake secrets are assembled at run time so no secret scanner trips on
// this file.
import assert from 'node:assert/strict';
import { maskSecrets } from '../../../src/core/secretMask';
import { HOSTILE } from '../adversarial/hostileInputs';

/** A deterministic "random" run of base62 characters. */
function noise(length: number, seed = 7): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let state = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out += alphabet[state % alphabet.length];
  }
  return out;
}

const hex = (length: number) => Array.from({ length }, (_, i) => '0123456789abcdef'[(i * 7 + ((i * i) % 13)) % 16]).join('');

const OPENAI = `sk-${'proj-'}${noise(40, 1)}`;
const ANTHROPIC = `sk-${'ant-api03-'}${noise(60, 2)}`;
const GITHUB = `gh${'p_'}${noise(36, 3)}`;
const GITHUB_PAT = `github${'_pat_'}11ABCDEFG0${noise(50, 4)}`;
const SLACK = `xox${'b-'}1234567890-1234567890123-${noise(24, 5)}`;
const AWS = `AKI${'A'}IOSFODNN7EXAMPLE`;
const JWT = `eyJ${'hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9'}.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.${noise(43, 6)}`;
const PEM = `-----BEGIN ${'RSA PRIVATE KEY'}-----\nMIIEowIBAAKCAQEA${noise(64, 7)}\n${noise(64, 8)}\n-----END RSA PRIVATE KEY-----`;

function masked(text: string): { text: string; masked: number } {
  return maskSecrets(text);
}

describe('core/secretMask: secrets are masked', () => {
  const cases: [string, string, string][] = [
    ['an OpenAI key', `export OPENAI_API_KEY_FILE=x; curl -H "x-key: ${OPENAI}"`, OPENAI],
    ['an Anthropic key', `key is ${ANTHROPIC}.`, ANTHROPIC],
    ['a GitHub token', `git clone https://${GITHUB}@github.com/o/r`, GITHUB],
    ['a fine-grained GitHub token', `(${GITHUB_PAT})`, GITHUB_PAT],
    ['a Slack token', `SLACK=${SLACK}`, SLACK],
    ['an AWS access key id', `aws_access_key_id = ${AWS}`, AWS],
    ['a JWT', `token ${JWT}.`, JWT],
    ['a PEM private key', `cat key.pem\n${PEM}\ndone`, PEM],
  ];
  for (const [name, text, secret] of cases) {
    it(`masks ${name}`, () => {
      const result = masked(text);
      assert.ok(!result.text.includes(secret), result.text);
      assert.ok(result.masked >= 1);
      assert.match(result.text, /\[masked [^\]]+\]/);
    });
  }

  it('names what it masked and keeps the text around it', () => {
    assert.deepEqual(masked(`use ${GITHUB} here`), { text: 'use [masked GitHub token] here', masked: 1 });
    assert.deepEqual(masked(`a ${AWS} b`), { text: 'a [masked AWS access key] b', masked: 1 });
    assert.deepEqual(masked(`${PEM}`), { text: '[masked private key]', masked: 1 });
  });

  it('masks the token of "Bearer <token>", keeping the word', () => {
    const token = noise(32, 9).toLowerCase();
    assert.equal(masked(`Authorization: Bearer ${token}`).text, 'Authorization: Bearer [masked bearer token]');
    assert.equal(masked(`-H 'authorization: bearer ${token}'`).text, "-H 'authorization: bearer [masked bearer token]'");
  });

  it('masks the value of password=, token=, secret= and their JSON, YAML and env forms', () => {
    const value = 'hunter2-Secret';
    for (const [text, expected] of [
      [`mysql -u root --password=${value} db`, 'mysql -u root --password=[masked secret value] db'],
      [`https://x.test/cb?token=${value}&next=1`, 'https://x.test/cb?token=[masked secret value]&next=1'],
      [`CLIENT_SECRET=${value}`, 'CLIENT_SECRET=[masked secret value]'],
      [`{"api_key": "${value}", "n": 1}`, '{"api_key": "[masked secret value]", "n": 1}'],
      [`{\\"password\\":\\"${value}\\"}`, '{\\"password\\":\\"[masked secret value]\\"}'],
      [`db_password: ${value}`, 'db_password: [masked secret value]'],
      [`password: 'plainwords'`, `password: '[masked secret value]'`],
      ['DB_PASSWORD=letmein now', 'DB_PASSWORD=[masked secret value] now'],
      ['password=hunter2', 'password=[masked secret value]'],
      ['mysql --password=letmein', 'mysql --password=[masked secret value]'],
      ['GET /cb?token=abcdef&x=1', 'GET /cb?token=[masked secret value]&x=1'],
      [`const token = 'abcdefgh';`, `const token = '[masked secret value]';`],
      // Key names in any case, their endings with '_' or '-' in them: the ending is compared character by character.
      ['AWS_SECRET_ACCESS_KEY=wJalr9XUtn', 'AWS_SECRET_ACCESS_KEY=[masked secret value]'],
      [`{"Private_Key": "${value}"}`, '{"Private_Key": "[masked secret value]"}'],
      [`X-Api-Key: ${value}`, 'X-Api-Key: [masked secret value]'],
      ['PWD=abc1', 'PWD=[masked secret value]'],
    ]) {
      assert.equal(masked(text).text, expected, text);
    }
  });

  it('masks a long high-entropy base64 run and a long random hex run', () => {
    const base64 = `${noise(30, 10)}+/${noise(20, 11)}==`;
    assert.equal(masked(`secret blob ${base64} end`).text, 'secret blob [masked high-entropy string] end');
    const key = hex(64);
    assert.equal(masked(`key ${key}`).text, 'key [masked high-entropy string]');
  });

  it('counts every string it masks', () => {
    const result = masked(`${GITHUB} and ${AWS} and password=${'abcd1234'} and ${JWT}`);
    assert.equal(result.masked, 4);
  });
});

describe('core/secretMask: what is not a secret is left alone', () => {
  const keep = [
    'Please look at the ledger flow next; the failing case is tagged LEDGER_1000 in the tracker.',
    'I checked src/invoice/handler.ts: the invoice path now handles INVOICE_1007 and the tests pass.',
    'commit 3f2a9c1b7e4d5a6b8c9d0e1f2a3b4c5d6e7f8a9b fixed it', // a git hash (40 hex)
    'id 0111e7ef-0ff5-4c1e-9a3b-1d2c3e4f5a6b and msg_013pbPJVxq9ZkFhT3mQ7aLw2 and toolu_01A2b3C4d5E6f7G8h9', // ids
    `"integrity": "sha512-${noise(86, 12)}=="`, // a lockfile digest
    `image@sha256:${hex(64)}`, // a container digest
    'src/components/UserProfileSettings/AvatarUpload2/index.tsx', // a long path
    'getUserProfileSettingsForAccountWithTwoFactorVerification2', // a long identifier
    'The token: expired yesterday, so the max_tokens=4096 limit and token_count=12 apply.',
    'password=${DB_PASSWORD} and token=$TOKEN and secret=<your secret> and api_key=***',
    'sk-learn is a library; sk-some-long-kebab-case-name-here-too is a name',
    'Bearer tokens are described in RFC 6750.',
    // Code that assigns names to secret-named variables.
    'const token = await fetchToken(); const apiKey = parsed.apiKey; secret = args.secret;',
    '{ token: String(value), apiKey: document.querySelector("#key") }',
    'secret_key_base = Base.url_encode64(bytes)',
    // Paths that mix '/' and '-' (no encoding does).
    '~/.claude/projects/-home-USER-projects-spotter-worktrees-spotter-fum/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl',
    '~/.pi/agent/sessions/--Users-badlogic-workspaces-pi-mono--/2025-12-08T23-22-21-320Z_abc.jsonl',
    '',
  ];
  for (const text of keep) {
    it(`keeps ${JSON.stringify(text.slice(0, 60))}`, () => {
      assert.deepEqual(masked(text), { text, masked: 0 });
    });
  }
});

describe('core/secretMask: hostile text goes through in linear time', () => {
  // ~1 MB each; a quadratic scan would take minutes, far beyond mocha's per-test timeout.
  const shaped: [string, string][] = [
    ['"sk-" repeated', 'sk-'.repeat(1 << 18)],
    ['"eyJ" dotted repeated', 'eyJaaaaaaaaaaaa.'.repeat(1 << 16)],
    ['"password=" repeated', 'password='.repeat(1 << 17)],
    ['"token: " repeated', 'token: '.repeat(1 << 17)],
    ['"Bearer " repeated', 'Bearer '.repeat(1 << 17)],
    ['"-----BEGIN PRIVATE KEY-----" repeated, no footer', '-----BEGIN PRIVATE KEY-----\n'.repeat(1 << 15)],
    ['"-----BEGIN PRIVATE KEY-----" with footers', `-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n`.repeat(1 << 14)],
    ['"-----BEGIN " repeated, no label end', '-----BEGIN '.repeat(1 << 17)],
    ['a base64 run of 1 MB', noise(1 << 20, 13)],
    ['a hex run of 1 MB', hex(1 << 20)],
    ['"a-" repeated', 'a-'.repeat(1 << 19)],
    ['"a/" repeated', 'a/'.repeat(1 << 19)],
    ['"x=" repeated', 'x='.repeat(1 << 19)],
    ['"AKIA" repeated', 'AKIA'.repeat(1 << 18)],
  ];
  for (const [name, text] of [...HOSTILE, ...shaped]) {
    it(`masks ${name} in linear time`, function () {
      this.timeout(10000);
      const result = maskSecrets(text);
      assert.ok(result.masked >= 0);
      assert.ok(result.text.length <= text.length + 40 * result.masked);
    });
  }
});
