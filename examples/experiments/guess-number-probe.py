#!/usr/bin/env python3
"""Samples a served Guess the Number model's second guess after every possible first clue.

Usage: ./mage serve --model DIR --port P --served-model-name m --no-thinking &  then  python3 guess-number-probe.py P [N]
Prints the distribution of N sampled second guesses (temperature 1) per clue and the share consistent with it.
Run by hand; nothing in the build calls it.
"""
import collections
import concurrent.futures as cf
import json
import re
import sys
import urllib.request

port=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
H="Guess the hidden number from 1 to 7; it is the same in every try.\n"
def ask(prompt):
    body=json.dumps({"model":"m","messages":[{"role":"user","content":prompt}],"temperature":1.0,"top_p":1.0,"max_tokens":16}).encode()
    r=urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions",data=body,headers={"Content-Type":"application/json"})
    t=json.load(urllib.request.urlopen(r,timeout=60))["choices"][0]["message"]["content"]
    m=re.search(r"<action>\s*(\d+)\s*</action>",t); return int(m.group(1)) if m else None
def dist(prompt):
    with cf.ThreadPoolExecutor(8) as ex: xs=list(ex.map(lambda _: ask(prompt), range(n)))
    return collections.Counter(xs)
d0=dist(H+"Try 1 now. Reply <action>N</action>.")
print("try1", sorted(d0.items(), key=lambda x: str(x[0])))
tot=0;cons=0
for g in range(1,8):
  for w,ok in (("too low",lambda x,g=g:x is not None and x>g),("too high",lambda x,g=g:x is not None and x<g)):
    if (g==7 and w=="too low") or (g==1 and w=="too high"): continue
    d=dist(H+f"Try 1: {g} is {w}\nTry 2 now. Reply <action>N</action>.")
    c=sum(v for k,v in d.items() if ok(k)); tot+=n; cons+=c
    print(g,w,"consistent %.2f"%(c/n), sorted(d.items(), key=lambda x: str(x[0])))
print("overall consistent %.3f"%(cons/tot))
