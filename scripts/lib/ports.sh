# Sourced by the benchmark scripts: ports on 127.0.0.1 picked at run time, so
# a bench never collides with a server someone left running, nor one script's
# fixed port with another's.

# free_ports N: prints the first of N consecutive TCP ports on 127.0.0.1 that
# nothing is bound to, from 20000–31999 (below Linux's ephemeral range, where
# the kernel hands out the ports of outgoing connections).
free_ports() {
	python3 - "$1" <<'PY'
import random, socket, sys
count = int(sys.argv[1])
for _ in range(200):
    first = random.randrange(20000, 32000 - count)
    sockets = []
    try:
        for port in range(first, first + count):
            s = socket.socket()
            sockets.append(s)
            s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        for s in sockets:
            s.close()
    print(first)
    sys.exit(0)
sys.exit("no free ports on 127.0.0.1")
PY
}
