// An unchanged ethers v6 script, run as its own process by tests: sends a transfer through txdesk's /rpc, prints the
// hash it was handed, waits for the receipt and prints it. Arguments: the /rpc URL, the token, the recipient.
import { FetchRequest, JsonRpcProvider } from 'ethers';

const [url, token, to] = process.argv.slice(2);
const request = new FetchRequest(url);
request.setHeader('Authorization', `Bearer ${token}`);
const provider = new JsonRpcProvider(request);
provider.pollingInterval = 500;
const signer = await provider.getSigner();
const tx = await signer.sendTransaction({ to, value: 1n });
console.log(JSON.stringify({ hash: tx.hash }));
const receipt = await tx.wait();
console.log(JSON.stringify({ mined: receipt.hash }));
provider.destroy();
