# Tiny steps: an agent poking at values one line at a time (x = 1-sized steps), state carried
# from step to step.
# %% step
x = 1
# %% step
y = x + 2
# %% step
print(y)
# %% step
items = [x, y, 5]
# %% step
total = sum(items)
# %% step
print(total)
# %% step
name = "result"
# %% step
print(name, total * 2)
