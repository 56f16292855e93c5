// zod schemas of the account request bodies (docs/api.md, Accounts); unknown fields are refused so typos surface.
import { z } from 'zod';

const email = z
  .string({ error: 'must be a string holding an e-mail address' })
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: 'must be an e-mail address such as ada@example.com' }).max(320, { error: 'must be at most 320 characters long' }))
  .meta({ type: 'string', format: 'email', maxLength: 320 });

const newPassword = z
  .string({ error: 'must be a string of 8 to 1024 characters' })
  .min(8, { error: 'must have at least 8 characters' })
  .max(1024, { error: 'must have at most 1024 characters' });

/** Login and the current password in passwd: any non-empty string, so rules changed later never lock anyone out. */
const anyPassword = z
  .string({ error: 'must be a non-empty string' })
  .min(1, { error: 'must not be empty' })
  .max(1024, { error: 'must have at most 1024 characters' });

const label = (max: number) =>
  z
    .string({ error: `must be a string of at most ${max} characters` })
    .trim()
    .max(max, { error: `must have at most ${max} characters` });

export const signupSchema = z
  .object({
    email,
    password: newPassword,
    name: label(200).pipe(z.string().min(1, { error: 'must not be empty' })),
    organization: label(200).default(''),
  })
  .strict();
export type SignupInput = z.infer<typeof signupSchema>;

export const loginSchema = z.object({ email, password: anyPassword }).strict();
export type LoginInput = z.infer<typeof loginSchema>;

export const passwdSchema = z.object({ password: anyPassword, newPassword }).strict();
export type PasswdInput = z.infer<typeof passwdSchema>;

/** Logout takes no input; a body, when sent, must be `{}`, so a client that thinks it can pass options learns it cannot. */
export const logoutSchema = z.object({}).strict();

/** Making the account's API secret: `rotate` must be said out loud to replace one that exists, since programs use it. */
export const apiSecretSchema = z
  .object({
    rotate: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .meta({ description: 'Replace the API secret the account has; the old one stops working at once.' }),
  })
  .strict();
export type ApiSecretInput = z.infer<typeof apiSecretSchema>;
