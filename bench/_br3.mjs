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
const b = await block(1000);
const time = async (label, f) => { const t0=performance.now(); const r = await f(); console.log(label, (performance.now()-t0).toFixed(1), 'ms'); return r; };
const hs = b.transactions;
for (let rep=0;rep<2;rep++){
await time('first 100 receipts', () => batch(hs.slice(0,100).map(h=>['eth_getTransactionReceipt',[h]])));
await time('last 100 receipts', () => batch(hs.slice(900).map(h=>['eth_getTransactionReceipt',[h]])));
await time('100 getTransactionByHash', () => batch(hs.slice(900).map(h=>['eth_getTransactionByHash',[h]])));
await time('1000 getTransactionByHash', () => batch(hs.map(h=>['eth_getTransactionByHash',[h]])));
const raw = await time('debug_getRawReceipts', () => post({jsonrpc:'2.0',id:1,method:'debug_getRawReceipts',params:[b.number]}));
console.log(JSON.stringify(raw).slice(0,200));
await time('full block', () => rpc('eth_getBlockByNumber',[b.number,true]));
await time('block hashes', () => rpc('eth_getBlockByNumber',[b.number,false]));
await time('getLogs block', () => rpc('eth_getLogs',[{fromBlock:b.number,toBlock:b.number}]));
}
await anvil.stop();
