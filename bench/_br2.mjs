import { join } from 'node:path';
const root = '/work/main/';
const { Transaction, Wallet } = await import('ethers');
const { startAnvil } = await import(join(root, 'dist/devchain/index.js'));
const { deriveDevAccounts } = await import(join(root, 'dist/devchain/dev-accounts.js'));
const anvil = await startAnvil({ gasLimit: 1000 * 21000, accounts: 10, blockTimeSeconds: 1 });
const post = async (body) => { const r = await fetch(anvil.url, {method:'POST', headers:{'content-type':'application/json'}, body: JSON.stringify(body)}); return r.json(); };
const rpc = async (method, params) => { const b = await post({jsonrpc:'2.0',id:1,method,params}); if (b.error) throw new Error(method+': '+b.error.message); return b.result; };
const batch = (calls) => post(calls.map((c,i)=>({jsonrpc:'2.0',id:i,method:c[0],params:c[1]})));
await rpc('evm_setIntervalMining',[0]); await rpc('evm_setAutomine',[false]);
const keys = deriveDevAccounts(10).map(a=>a.privateKey); const signers = keys.map(k=>new Wallet(k).signingKey);
const nonces = new Array(10).fill(0);
async function block(n){ const txs=[];
  for (let i=0;i<n;i++){const s=i%10; const tx=Transaction.from({to:'0x000000000000000000000000000000000000dEaD',value:1n,nonce:nonces[s]++,gasLimit:21000n,maxFeePerGas:200_000_000_000n,maxPriorityFeePerGas:1_000_000_000n,chainId:31337n,type:2}); tx.signature=signers[s].sign(tx.unsignedHash); txs.push(tx);}
  for (let i=0;i<n;i+=500) await batch(txs.slice(i,i+500).map(t=>['eth_sendRawTransaction',[t.serialized]]));
  await rpc('evm_mine',[]); return rpc('eth_getBlockByNumber',['latest',false]); }
const cpu = () => { const f = (await_ => require_)(); };
import { readFileSync } from 'node:fs';
const cpuMs = () => { const f = readFileSync(`/proc/${anvil.pid}/stat`,'utf8').split(') ')[1].split(' '); return (Number(f[11])+Number(f[12]))*10; };
async function lookups(hs, chunk, conc){ const chunks=[]; for(let j=0;j<hs.length;j+=chunk) chunks.push(hs.slice(j,j+chunk)); let nx=0; const c0=cpuMs(); const t0=performance.now(); await Promise.all(Array.from({length:conc},async()=>{while(nx<chunks.length) await batch(chunks[nx++].map(h=>['eth_getTransactionReceipt',[h]]));})); return [performance.now()-t0, cpuMs()-c0]; }
const b100 = await block(100);
const b1000 = await block(1000);
for (let rep=0; rep<2; rep++) {
for (const [chunk, conc] of [[100,1],[100,2],[100,4],[50,4],[250,2],[1000,1],[25,8]]) {
  const [t, c] = await lookups(b1000.transactions, chunk, conc);
  console.log(`1000-tx block, chunk ${chunk} x${conc}: ${t.toFixed(1)} ms wall, anvil cpu ${c} ms`);
}
const [t100] = await lookups(b100.transactions, 100, 1);
console.log(`100-tx block, 1 chunk: ${t100.toFixed(1)} ms`);
let t0=performance.now(); await rpc('eth_getBlockReceipts',[b100.number]); console.log(`getBlockReceipts 100-tx: ${(performance.now()-t0).toFixed(1)}`);
t0=performance.now(); try { const r = await rpc('ots_getBlockTransactions',[Number(b1000.number), 0, 1000]); console.log(`ots_getBlockTransactions 1000: ${(performance.now()-t0).toFixed(1)} ms, receipts ${r.receipts?.length}`);} catch(e){console.log(e.message)}
}
await anvil.stop();
