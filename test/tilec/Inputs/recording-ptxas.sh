#!/bin/sh
# A stand-in ptxas (-arch, -O, input, -o, output, -v): records the input's path
# and its directory's mode in $RECORD, then fails, or with $KILL_PARENT=1
# sends SIGTERM to tilec first.
echo "$3" > "$RECORD"
stat -c '%a' "$(dirname "$3")" >> "$RECORD"
if [ "$KILL_PARENT" = 1 ]; then
  kill -TERM "$PPID"
  sleep 5
fi
echo "ptxas fatal   : stand-in failure" >&2
exit 1
