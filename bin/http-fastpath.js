#!/usr/bin/env node
'use strict';
// npx http-fastpath check [options] -- <command that starts your app>
require('../lib/check/cli').main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
