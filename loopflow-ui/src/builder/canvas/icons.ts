// The icon of each node kind on the canvas and in the palette (the run viewer's choices, plus the loop and exit
// icons of the builder's design: circular arrows and log-out).
import {
  Bot,
  Box,
  Braces,
  CheckSquare,
  CircleStop,
  Flag,
  Globe,
  Layers,
  LogIn,
  LogOut,
  MessageSquare,
  RefreshCw,
  Repeat,
  ScrollText,
  ShieldCheck,
  Sigma,
  Split,
  Terminal,
  type LucideIcon,
} from 'lucide-react';

const ICONS: Record<string, LucideIcon> = {
  llm: MessageSquare,
  agent: Bot,
  shell: Terminal,
  script: ScrollText,
  transform: Braces,
  router: Split,
  http: Globe,
  approval: CheckSquare,
  validator: ShieldCheck,
  loop: RefreshCw,
  exit: LogOut,
  loop_group: Layers,
  while_loop: Repeat,
  iterator: Repeat,
  aggregator: Sigma,
  cancel: CircleStop,
  input: LogIn,
  output: Flag,
};

export function kindIcon(kind: string | null | undefined): LucideIcon {
  return ICONS[kind ?? ''] ?? Box;
}
