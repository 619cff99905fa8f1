        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
P        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
y        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
T        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
v        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
y        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
z        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
#        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
E        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
v        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
y        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
M        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
'        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
P        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
y        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
T        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
2        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
0        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
;        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
v        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
y        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
O        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
z        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
v        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
`        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
W        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
[        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
]        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
H        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
v        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
v        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
[        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
]        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
S        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
[        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
]        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
#        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
A        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
;        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
v        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
S        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
*        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
y        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
*        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
y        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
y        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
T        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
T        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
T        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
S        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
;        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
v        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
[        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
]        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
H        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
D        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
D        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
z        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
z        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
"        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
N        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
N        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
*        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
#        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
b        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
P        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
y        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
T        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
2        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
0        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
O        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
z        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
O        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
z        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
*        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
*        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
*        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
y        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
*        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
,        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
*        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
*        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
k        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
w        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
y        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
x        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
O        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
z        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
R        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
v        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
f        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
:        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
c        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
O        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
m        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
z        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
=        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
g        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
i        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
.        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
p        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
R        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
o        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
t        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
u        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
r        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
         else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
_        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
H        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
(        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
h        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
a        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
n        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
d        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
l        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
e        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
s        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
)        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))

        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
