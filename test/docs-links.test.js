'use strict';
// Every relative link and image in the README, docs/ and benchmark/README.md
// points to a file that exists (the README's details live in docs/, and a
// moved page must not leave a dead link behind).

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const PAGES = ['README.md', 'benchmark/README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const LINK = /!?\[[^\]]*\]\(([^)\s]+)\)/g;

test('the docs pages are there', () => {
  for (const page of ['docs/express.md', 'docs/files.md', 'docs/compression.md', 'docs/http2.md', 'docs/response-path.md', 'docs/known-differences.md', 'docs/testing.md']) {
    assert.ok(PAGES.includes(page), page);
    assert.match(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), new RegExp(`\\]\\(${page.replace('.', '\\.')}\\)`), `the README links to ${page}`);
  }
});

for (const page of PAGES) {
  test(`${page}: relative links resolve`, () => {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    const links = [...text.matchAll(LINK)].map((m) => m[1]).filter((href) => !/^(?:[a-z]+:|#)/i.test(href));
    const dead = links.filter((href) => !fs.existsSync(path.join(ROOT, path.dirname(page), decodeURI(href.split('#')[0]))));
    assert.deepStrictEqual(dead, [], `${page} links to missing files`);
  });
}
