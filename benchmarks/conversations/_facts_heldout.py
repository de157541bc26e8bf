"""Held-out fact templates: new facts and new wording, for a split nothing was tuned on.

Same notation as ``_facts_a``. These templates are used only by the held-out
split (``generate.py --split heldout``, another seed); the development split
never sees them, so a change that helps only the development split shows up
as a gap between the two (benchmarks/RESULTS.md).
"""

from benchmarks.conversations._model import FactTemplate, T

__all__ = ["HELDOUT"]

_REPLY = (
    T([[("x", "Did you ever find someone for the bathroom leak?"),
        ("o*", "My cousin {person} came round and sorted it in an hour.")]],
      ["Who fixed {O}'s bathroom plumbing?", "Who did {O} get to repair the leak?"],
      "{O}'s cousin {person}"),
    T([[("x", "Which uni did your son pick in the end?"),
        ("o*", "{city}, he wants to do marine biology.")]],
      ["Where is {O}'s son going to university?", "Which city will {O}'s son study in?"],
      "{city}"),
    T([[("x", "What did the garage say about that rattle?"),
        ("o*", "Loose exhaust bracket. {price} quid and it's quiet again.")]],
      ["What was wrong with {O}'s car?", "What was causing the noise in {O}'s car?"],
      "a loose exhaust bracket"),
    T([[("x", "Where are you having the leaving do?"),
        ("o*", "{restaurant}, the upstairs room, Friday week.")]],
      ["Where is {O}'s leaving party?", "Which venue did {O} book for the farewell drinks?"],
      "{restaurant}"),
    T([[("x", "What did you end up putting along the fence?"),
        ("o*", "Lavender, and a couple of climbing roses at the end.")]],
      ["What did {O} plant by the fence?", "Which flowers did {O} put along the fence?"],
      "lavender and climbing roses"),
)

_SHORT = (
    T([[("x", "What number is the new place?"), ("o*", "{housenum}.")]],
      ["What is the number of {O}'s new house?", "Which house number did {O} move into?"],
      "{housenum}"),
    T([[("x", "Which day do the bins go out on your street?"), ("o*", "{day}s.")]],
      ["On which day are the bins collected on {O}'s street?", "When is {O}'s bin day?"],
      "{day}"),
    T([[("x", "How old is your nan now?"), ("o*", "{age}!"), ("x", "Incredible.")]],
      ["How old is {O}'s grandmother?", "What age has {O}'s nan reached?"],
      "{age}"),
    T([[("x", "What breed did you go for in the end?"), ("o*", "{breed}.")]],
      ["What breed is {O}'s new dog?", "Which kind of dog did {O} get?"],
      "{breed}"),
    T([[("x", "What's the wifi password again?"), ("o*", "{password}, all lower case.")]],
      ["What is {O}'s wifi password?", "What did {O} say the wifi password was?"],
      "{password}"),
)

_FIRST_PERSON = (
    T([[("o*", "I finally finished knitting my first jumper, the sleeves are different lengths."),
        ("x", "I can't even knit a scarf.")]],
      ["What did {O} knit?", "What piece of clothing did {O} make?"],
      "a jumper"),
    T([[("o*", "I've signed up for a {distance} charity swim in August."), ("x", "I'd sink.")]],
      ["What charity event has {O} entered?", "How far is {O} swimming for charity?"],
      "a {distance} charity swim"),
    T([[("o*", "I'm writing a children's book about a lighthouse keeper's cat."),
        ("x", "I've always wanted to write something.")]],
      ["What is {O}'s book about?", "What story is {O} writing?"],
      "a lighthouse keeper's cat"),
    T([[("o*", "I got my ears pierced for my fortieth, finally."),
        ("x", "I had mine done at twelve and regretted it.")]],
      ["What did {O} do for the fortieth birthday?", "How did {O} mark turning forty?"],
      "got ears pierced"),
    T([[("o*", "I've taken up rowing on the river at six in the morning."),
        ("x", "I'd rather stay in bed, honestly.")]],
      ["What sport did {O} take up on the river?", "What does {O} do early in the morning?"],
      "rowing"),
)

_SESSION_DATE = (
    T([[("o*", "My car got towed this morning, I'm fuming."), ("x", "{aw}")]],
      ["When was {O}'s car towed?", "On what day did {O}'s car get towed away?"],
      "the morning of the session"),
    T([[("o*", "First frost last night, the tomatoes are done for.")]],
      ["When did {O}'s garden get its first frost?", "When were {O}'s tomatoes killed off?"],
      "the night before the session"),
    T([[("o*", "Ran into my old headteacher at the station on Thursday!")]],
      ["When did {O} bump into the old headteacher?", "On which day did {O} meet the former head?"],
      "the Thursday before the session"),
    T([[("o*", "The new sofa finally arrived yesterday afternoon."), ("x", "{yay}")]],
      ["When was {O}'s new sofa delivered?", "When did {O}'s sofa arrive?"],
      "the day before the session"),
    T([[("o*", "Three days ago I got the all-clear from the hospital."), ("x", "{yay}")]],
      ["When did {O} get the all-clear?", "On which day did {O} hear good news from the hospital?"],
      "three days before the session"),
)

_LISTS = (
    T([[("o*", "Finished a thriller on the train, couldn't put it down.")],
       [("o*", "Now I'm into a biography of a jazz pianist.")],
       [("o*", "Started the poetry collection my aunt gave me.")]],
      ["What books has {O} been reading?", "What has {O} read recently?"],
      "a thriller, a jazz biography and poetry"),
    T([[("o*", "Saw a string quartet in the cathedral, gorgeous.")],
       [("o*", "Went to a punk gig in a tiny basement, my ears!")],
       [("o*", "Took the kids to an open-air opera, they lasted an hour.")]],
      ["Which live music has {O} been to?", "What concerts has {O} attended?"],
      "a string quartet, a punk gig and an open-air opera"),
    T([[("o*", "Twisted my ankle on the stairs, very elegant.")],
       [("o*", "Now I've got tonsillitis, of course.")],
       [("o*", "Pulled a muscle in my back lifting the shopping.")]],
      ["What health problems has {O} had lately?", "What ailments has {O} suffered?"],
      "a twisted ankle, tonsillitis and a pulled back muscle"),
    T([[("o*", "We bought a new dining table, solid oak.")],
       [("o*", "Got a rocking chair for the nursery.")],
       [("o*", "Treated ourselves to a proper bookcase at last.")]],
      ["What furniture has {O} bought?", "Which pieces of furniture did {O} get for the house?"],
      "a dining table, a rocking chair and a bookcase"),
)

_UPDATES = (
    T([[("o~", "I take the train to work every day.")],
       [("o*", "I've started cycling to work instead, it's quicker than the train.")]],
      ["How does {O} get to work now?", "How does {O} commute at the moment?"],
      "by bike"),
    T([[("o~", "We're thinking of calling the baby {middlename1}.")],
       [("o*", "Changed our minds, the baby will be {middlename2}.")]],
      ["What will {O}'s baby be called?", "Which name did {O} settle on for the baby?"],
      "{middlename2}"),
    T([[("o~", "I'm on the night shift at the hospital.")],
       [("o*", "Switched to day shifts at last, I feel human again.")]],
      ["Which shift does {O} work now?", "Does {O} still work nights?"],
      "day shifts"),
    T([[("o~", "I'm renting a flat above the bakery.")],
       [("o*", "We bought a house on {street} and moved in last week.")]],
      ["Where does {O} live these days?", "Is {O} still renting?"],
      "a house on {street}"),
)

_NOT_SAID = (
    T([[("o*", "I'm running the marathon in April, terrified."), ("x", "{yay}")]],
      ["Which race is {X} running in April?", "When is {X}'s marathon?"],
      "{X} never said; {O} runs it"),
    T([[("o*", "My daughter got into {city} to study law.")]],
      ["What will {X}'s daughter study?", "Where is {X}'s daughter going to university?"],
      "{X} never said; {O}'s daughter studies law in {city}"),
    T([[("o*", "I drive a {car}, it never lets me down.")]],
      ["What car does {X} drive?", "Which car does {X} own?"],
      "{X} never said; {O} drives a {car}"),
)

_PLAIN = (
    T([[("o*", "My brother {person} is a firefighter in {city}.")]],
      ["What does {O}'s brother do?", "Where does {O}'s brother {person} work?"],
      "a firefighter in {city}"),
    T([[("o*", "The dentist said I need two fillings next month.")]],
      ["How many fillings does {O} need?", "What did the dentist tell {O}?"],
      "two fillings"),
    T([[("o*", "Our street party is on the last Saturday of {month}.")]],
      ["When is {O}'s street party?", "On which day is the party on {O}'s street?"],
      "the last Saturday of {month}"),
    T([[("o*", "My favourite board game is {game}, and I always win.")]],
      ["What is {O}'s favourite board game?", "Which game does {O} always win?"],
      "{game}"),
)

#: pattern -> (kind, template) pairs, as ``generate.PATTERNS``
HELDOUT: dict[str, tuple[tuple[str, FactTemplate], ...]] = {
    "reply": tuple(("reply", t) for t in _REPLY),
    "short_turn": tuple(("short_turn", t) for t in _SHORT),
    "first_person": tuple(("first_person", t) for t in _FIRST_PERSON),
    "session_date": tuple(("session_date", t) for t in _SESSION_DATE),
    "cross_session_list": tuple(("cross_session_list", t) for t in _LISTS),
    "update_or_not_said": tuple(("update", t) for t in _UPDATES)
    + tuple(("not_said", t) for t in _NOT_SAID),
    "plain": tuple(("plain", t) for t in _PLAIN),
}
