// Tells the store a form has edits not saved yet, so leaving the screen (or the page) asks first.
import { useEffect } from 'react';
import { useApp } from '../../store/use-app.js';

export function useDirty(form: string, dirty: boolean): void {
  const setDirty = useApp((s) => s.setDirty);
  useEffect(() => {
    setDirty(form, dirty);
  }, [form, dirty, setDirty]);
  useEffect(() => () => setDirty(form, false), [form, setDirty]);
}
