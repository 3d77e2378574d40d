// The back edge of a loop or a restart, drawn the same way on the run page and in the builder: a dashed step path
// around the right of what it loops over, its label ("next pass · k/N", "≤ 3") beside the path's vertical run, so it
// never sits on the loop box's corner or on the nodes.
import { BaseEdge, EdgeLabelRenderer, getSmoothStepPath, type EdgeProps } from '@xyflow/react';

/** how far right of its ends a back edge runs */
const BACK_OFFSET = 40;

/** The edge component; `testId` names its label for the browser tests of the page that draws it. */
export function backEdge(testId: string) {
  return function BackEdge({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, label, markerEnd, style }: EdgeProps) {
    const [path] = getSmoothStepPath({ sourceX, sourceY, sourcePosition, targetX, targetY, targetPosition, offset: BACK_OFFSET, borderRadius: 12 });
    const x = Math.max(sourceX, targetX) + BACK_OFFSET + 6;
    const y = (sourceY + targetY) / 2;
    return (
      <>
        <BaseEdge path={path} markerEnd={markerEnd} style={style} />
        {label ? (
          <EdgeLabelRenderer>
            <div className="back-edge-label nodrag nopan" style={{ transform: `translate(${x}px, ${y}px) translateY(-50%)` }} data-testid={testId}>
              {label}
            </div>
          </EdgeLabelRenderer>
        ) : null}
      </>
    );
  };
}
