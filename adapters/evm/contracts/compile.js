// Compiles src/*.sol with the pinned solc-js and writes build/<Contract>.abi and .bin for every
// deployable contract. Settings live here so generate.sh and CI build the same bytecode.
'use strict';
const fs = require('fs');
const path = require('path');
const solc = require('solc');

const root = __dirname;
const srcDir = path.join(root, 'src');
// --out DIR writes elsewhere (the Go test compares a fresh build with the committed one).
const outArg = process.argv.indexOf('--out');
const outDir = outArg >= 0 ? path.resolve(process.argv[outArg + 1]) : path.join(root, 'build');

const sources = {};
for (const f of fs.readdirSync(srcDir).filter((f) => f.endsWith('.sol')).sort()) {
  sources[`src/${f}`] = { content: fs.readFileSync(path.join(srcDir, f), 'utf8') };
}

const input = {
  language: 'Solidity',
  sources,
  settings: {
    evmVersion: 'cancun',
    optimizer: { enabled: true, runs: 200 },
    viaIR: true,
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};

function findImports(p) {
  for (const base of [root, path.join(root, 'node_modules')]) {
    const full = path.join(base, p);
    if (fs.existsSync(full)) return { contents: fs.readFileSync(full, 'utf8') };
  }
  return { error: `import not found: ${p}` };
}

const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
let failed = false;
for (const e of out.errors || []) {
  console.error(e.formattedMessage);
  if (e.severity === 'error') failed = true;
}
if (failed) process.exit(1);

fs.mkdirSync(outDir, { recursive: true });
const written = [];
for (const [file, contracts] of Object.entries(out.contracts)) {
  if (!file.startsWith('src/')) continue;
  for (const [name, c] of Object.entries(contracts)) {
    const bin = c.evm.bytecode.object;
    if (!bin) continue; // abstract contracts and interfaces have no bytecode
    fs.writeFileSync(path.join(outDir, `${name}.abi`), JSON.stringify(c.abi, null, 2) + '\n');
    fs.writeFileSync(path.join(outDir, `${name}.bin`), bin);
    written.push(name);
  }
}
console.log(`solc ${solc.version()}: wrote ${written.join(', ')}`);
