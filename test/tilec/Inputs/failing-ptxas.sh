#!/bin/sh
echo "ptxas fatal   : Unresolved extern function 'nothing'" >&2
exit 1
