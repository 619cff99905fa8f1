# The public header as users compile it: C11 and C++11 with every warning
# as an error, the injection header too, and MSTX_DISABLE compiling every
# call away (no library needed at link time).
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"

INC=$SRCDIR/include
cat >"$T_WORK/user.c" <<'C'
#include <stdio.h>
#include <mstx/ms_tools_ext.h>
#include <mstx/mstx_injection.h>
int main(void)
{
	uint64_t id = 1;
	mstxDomainHandle_t d = mstxDomainCreateA("user");
	mstxRangeId r = mstxRangeStartA("range", NULL);
	mstxMarkA("mark", NULL);
	mstxDomainMarkA(d, "dmark", NULL);
	mstxDomainRangeEnd(d, mstxDomainRangeStartA(d, "drange", NULL));
	mstxRangeEnd(r);
	mstxDomainDestroy(d);
	mstxGetToolId(&id);
	printf("%llu\n", (unsigned long long)id);
	return 0;
}
C
cp "$T_WORK/user.c" "$T_WORK/user.cpp"
sed -i 's/NULL/nullptr/g' "$T_WORK/user.cpp"

t_check "C11 -Wall -Wextra -pedantic -Werror" $CC -std=c11 -Wall -Wextra -pedantic -Werror -I"$INC" -c "$T_WORK/user.c" -o "$T_WORK/user.o"
if [ -n "${CXX:-}" ]; then
	t_check "C++11 -Wall -Wextra -pedantic -Werror" $CXX -std=c++11 -Wall -Wextra -pedantic -Werror -I"$INC" -c "$T_WORK/user.cpp" -o "$T_WORK/userpp.o"
else
	t_ok "no C++ compiler: C++ not checked"
fi
if $CC -std=c11 -Wall -Wextra -pedantic -Werror -DMSTX_DISABLE -I"$INC" "$T_WORK/user.c" -o "$T_WORK/user-off"; then
	t_ok "MSTX_DISABLE: links without libms_tools_ext"
	out=$("$T_WORK/user-off")
	if [ "$out" = 0 ]; then t_ok "MSTX_DISABLE: tool id 0"; else t_fail "MSTX_DISABLE: tool id $out"; fi
else
	t_fail "MSTX_DISABLE does not compile"
fi
t_done
