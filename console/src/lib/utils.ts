import { clsx, type ClassValue } from 'clsx';
import { twMerge } from 'tailwind-merge';

/** Class names joined, later Tailwind utilities winning over earlier ones of the same property. */
export const cn = (...inputs: ClassValue[]) => twMerge(clsx(inputs));
