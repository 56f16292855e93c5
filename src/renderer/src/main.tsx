// Renderer entry: placeholder until the React app lands (issue 7).
import { createRoot } from 'react-dom/client';
createRoot(document.getElementById('root')!).render(<h1>txdesk</h1>);
