// Electron entry: placeholder until the shell lands (issue 7).
import { app } from 'electron';
app.whenReady().then(() => app.quit());
